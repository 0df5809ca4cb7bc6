#!/usr/bin/env bash
# Launch cost, peak memory and size of pmc against perf: the goals of issue 23, as ratios
# from interleaved pairs (bench/pairs: pmc, perf, pmc, perf, ...; CPU is user + system of
# the whole process tree from wait4, peak RSS its largest process). Run by hand, never in CI:
#
#   bash bench/launch.sh [PAIRS]      (default 30 pairs; 10 for the longer commands)
#   PMC=/path/to/other/pmc bash bench/launch.sh    (another build, e.g. an older commit's)
#
# It prints the load average first: on a shared machine quote the ratios, not the times,
# and say how loaded it was. Goals: stat -e task-clock <= 0.5x perf's CPU, the default set
# <= 0.6x, compare -r 10 <= perf stat -r 10, peak RSS of stat/record/report <= perf's, the
# stripped binary <= 12 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-30}
few=$(( pairs / 3 > 5 ? pairs / 3 : 5 ))
command -v perf >/dev/null || { echo "perf not installed: apt-get install linux-perf" >&2; exit 1; }
make -s build workloads >/dev/null
pmc=${PMC:-$PWD/bin/pmc}
loop=$PWD/workloads/build/$(uname -m)/loop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pairs" ./bench/pairs
p() { "$tmp/pairs" "$@"; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $(date -u +%FT%TZ)"
size=$(stat -c %s "$pmc")
printf 'binary: %s %d bytes (%.1f MB; goal <= 12 MB)\n' "$pmc" "$size" "$(echo "$size / 1000000" | bc -l)"
n_pmc=$(GODEBUG=inittrace=1 "$pmc" version 2>&1 >/dev/null | grep -c '^init ' || true)
n_shim=$(GODEBUG=inittrace=1 PMC_LAUNCH_SHIM=x "$pmc" 2>&1 >/dev/null | grep -c '^init ' || true)
echo "package inits: pmc version $n_pmc; the fallback launch shim (pmc re-executed) $n_shim before it execs the workload"
echo "launch: $("$pmc" doctor 2>/dev/null | grep 'workload launch' | sed 's/  */ /g')"
echo

p -n "$pairs" -label "stat -e task-clock" -a "$pmc stat -e task-clock -- /bin/true" -b "perf stat -e task-clock -- /bin/true"
p -n "$pairs" -label "stat (default set)" -a "$pmc stat -- /bin/true" -b "perf stat -- /bin/true"
p -n "$few" -label "compare -r 10" -a "$pmc compare -r 10 /bin/true" -b "perf stat -r 10 /bin/true"
# The same work for both recorders: 600M instructions of the loop, cpu-clock at 4 kHz.
p -n "$few" -label "record" -a "$pmc record -e cpu-clock -o $tmp/pmc.data -- $loop 300000000" \
	-b "perf record -q -e cpu-clock -o $tmp/perf.data -- $loop 300000000"
# System-wide: every task's maps synthesized and followed, the build-ids of the files hit.
p -n "$few" -label "record -a" -a "$pmc record -a -e cpu-clock -o $tmp/pmc-a.data -- sleep 1" \
	-b "perf record -q -a -e cpu-clock -o $tmp/perf-a.data -- sleep 1"
# Both report the same perf.data (recorded by perf, no call graphs).
perf record -q -e cpu-clock -o "$tmp/in.data" -- "$loop" 300000000 >/dev/null 2>&1
p -n "$few" -label "report" -a "$pmc report -i $tmp/in.data --stdio" -b "perf report -i $tmp/in.data --stdio"
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

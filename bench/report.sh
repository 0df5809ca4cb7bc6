#!/usr/bin/env bash
# Sampling benchmarks, run by hand (never in CI): bash bench/report.sh [SECONDS] [RUNS]
#
# 1. pmc report --stdio vs perf report --stdio on the same large recording: perf record -g
#    -F 20000 of two copies of a deep-stack C workload (frame pointers, built here) running
#    SECONDS each (default 4: >= 100k samples when the two CPUs are free). Both reports'
#    wall time and peak RSS (/usr/bin/time -f %M), best of RUNS (default 3), and whether the
#    two agree row for row (--no-children, no graph: the rows perf's -g report also shows).
# 2. pmc record vs perf record on loop for ~1 s at 4 kHz (cpu-clock): wall time against the
#    bare workload (interleaved, best and median of RUNS*2 runs) and the samples lost.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-4}
runs=${2:-3}
command -v perf >/dev/null || { echo "report.sh: perf not installed: apt-get install linux-perf" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "report.sh: /usr/bin/time missing: apt-get install time" >&2; exit 1; }
make -s build workloads >/dev/null
pmc=$PWD/bin/pmc
loop=$PWD/workloads/build/$(uname -m)/loop
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cc -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$TMP/deep" bench/deep.c

echo "== recording: perf record -e cpu-clock -F 20000 -g, 2 x deep $secs s" >&2
perf record -q -e cpu-clock -F 20000 -g -o "$TMP/big.data" -- sh -c "'$TMP/deep' $secs & '$TMP/deep' $secs; wait" 2>/dev/null
samples=$("$pmc" report -i "$TMP/big.data" --no-children -g=false | awk '/^# Samples:/ && s == "" {s = $3} END {print s}')
size=$(du -m "$TMP/big.data" | cut -f1)
echo "recording: $samples samples, $size MB"

# best TOOL CMD...: runs CMD $runs times, prints "best_wall_s max_rss_kb" of the fastest run.
best() {
	local out=$1; shift
	local bw="" brss=""
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >"$out" 2>/dev/null
		read -r w rss <"$TMP/time"
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then bw=$w brss=$rss; fi
	done
	echo "$bw $brss"
}
# Warm the page cache and perf's build-id cache once.
perf report --stdio -i "$TMP/big.data" >/dev/null 2>&1
read -r pmc_s pmc_rss < <(best "$TMP/pmc.txt" "$pmc" report --stdio -i "$TMP/big.data")
read -r perf_s perf_rss < <(best "$TMP/perf.txt" perf report --stdio -i "$TMP/big.data")
read -r pmcn_s pmcn_rss < <(best "$TMP/pmcn.txt" "$pmc" report --stdio --no-children -g=false -i "$TMP/big.data")
read -r perfn_s perfn_rss < <(best "$TMP/perfn.txt" perf report --stdio --no-children -g none -i "$TMP/big.data")
awk -v a="$pmc_s" -v b="$perf_s" -v ra="$pmc_rss" -v rb="$perf_rss" -v c="$pmcn_s" -v d="$perfn_s" -v rc="$pmcn_rss" -v rd="$perfn_rss" 'BEGIN {
	printf "report (children + call graphs, the default): pmc %.2f s %d MB, perf %.2f s %d MB: pmc %.1fx faster\n", a, ra/1024, b, rb/1024, (a > 0) ? b/a : 0
	printf "report (--no-children, no graph):             pmc %.2f s %d MB, perf %.2f s %d MB: pmc %.1fx faster\n", c, rc/1024, d, rd/1024, (c > 0) ? d/c : 0
}'
rows() { grep -E '^ +[0-9]+\.[0-9]+% ' "$1" | tr -s ' '; }
if diff <(rows "$TMP/perfn.txt") <(rows "$TMP/pmcn.txt") >/dev/null; then
	echo "rows: pmc and perf agree ($(rows "$TMP/pmcn.txt" | wc -l) rows)"
else
	echo "rows: pmc and perf DIFFER (perf reads [vdso] from its build-id cache, pmc does not):"; diff <(rows "$TMP/perfn.txt") <(rows "$TMP/pmcn.txt") | head -20 || true
fi

echo "== record overhead: loop ~1 s, -F 4000 -e cpu-clock" >&2
n=1200000000
now() { date +%s%N; }
declare -a bare=() pr=() pf=()
pmc_lost=0 perf_lost=0
for ((i = 0; i < runs * 2; i++)); do
	t0=$(now); "$loop" $n >/dev/null; bare+=($(( $(now) - t0 )))
	t0=$(now); "$pmc" record -e cpu-clock -F 4000 -o "$TMP/r.pmc" -- "$loop" $n >/dev/null 2>"$TMP/pmc.err"; pr+=($(( $(now) - t0 )))
	t0=$(now); perf record -q -e cpu-clock -F 4000 -o "$TMP/r.perf" -- "$loop" $n >/dev/null 2>&1; pf+=($(( $(now) - t0 )))
	l=$("$pmc" report -i "$TMP/r.pmc" | awk '/Total Lost Samples/ {print $5}'); pmc_lost=$((pmc_lost + l))
	l=$("$pmc" report -i "$TMP/r.perf" | awk '/Total Lost Samples/ {print $5}'); perf_lost=$((perf_lost + l))
done
ps=$("$pmc" report -i "$TMP/r.pmc" | awk '/^# Samples:/ && s == "" {s = $3} END {print s}')
fs=$("$pmc" report -i "$TMP/r.perf" | awk '/^# Samples:/ && s == "" {s = $3} END {print s}')
stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f %.3f\n", a[1]/1e9, m/1e9}'; }
read -r bmin bmed < <(stats "${bare[@]}")
read -r pmin pmed < <(stats "${pr[@]}")
read -r fmin fmed < <(stats "${pf[@]}")
awk -v b="$bmin" -v bm="$bmed" -v p="$pmin" -v pm="$pmed" -v f="$fmin" -v fm="$fmed" 'BEGIN {
	printf "record: bare %.3f s (med %.3f), pmc record %.3f s (med %.3f), perf record %.3f s (med %.3f)\n", b, bm, p, pm, f, fm
	printf "record overhead vs bare (best): pmc %+.3f s (%+.1f%%), perf %+.3f s (%+.1f%%)\n", p-b, 100*(p-b)/b, f-b, 100*(f-b)/b
}'
echo "record: samples in the last run: pmc $ps, perf $fs; lost over $((runs * 2)) runs: pmc $pmc_lost, perf $perf_lost"

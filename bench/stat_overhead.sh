#!/usr/bin/env bash
# Launch cost and counting overhead of `pmc stat` vs `perf stat` vs the bare workload, in one run.
# Run by hand (never in CI): bash bench/stat_overhead.sh [TRUE_RUNS] [CPU_RUNS]
# Prints per-run wall time (ms) medians and the ratios the note quotes.
set -euo pipefail
cd "$(dirname "$0")/.."
true_runs=${1:-200}
cpu_runs=${2:-7}
make -s build workloads >/dev/null
pmc=./bin/pmc
loop=./workloads/build/$(uname -m)/loop
events=task-clock,page-faults,context-switches,cpu-migrations
command -v perf >/dev/null || { echo "perf not installed: apt-get install linux-perf" >&2; exit 1; }

# median wall time in ms of N runs of "$@" (stdout/stderr discarded)
median_ms() {
	local n=$1; shift
	local ts=()
	for ((i = 0; i < n; i++)); do
		local t0 t1
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		ts+=($(( (t1 - t0) )))
	done
	printf '%s\n' "${ts[@]}" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m/1e6}'
}

# a CPU-bound run of about one second: calibrate the loop's iteration count
iters=100000000
t=$(median_ms 1 "$loop" $iters)
iters=$(awk -v i=$iters -v t="$t" 'BEGIN {printf "%d", i*1000/t}')

echo "workload                 bare_ms   pmc_ms   perf_ms   pmc-bare  perf-bare  pmc/perf(cost)"
row() {
	local name=$1 n=$2; shift 2
	local bare pmcm perfm
	bare=$(median_ms "$n" "$@")
	pmcm=$(median_ms "$n" $pmc stat -e $events -o /dev/null -- "$@")
	perfm=$(median_ms "$n" perf stat -e $events -o /dev/null -- "$@")
	awk -v n="$name" -v b="$bare" -v p="$pmcm" -v f="$perfm" 'BEGIN {
		printf "%-22s %9.3f %8.3f %9.3f %9.3f %10.3f %10.2f\n", n, b, p, f, p-b, f-b, (f-b>0)?(p-b)/(f-b):0
		printf "   overhead vs bare: pmc %+.2f%%, perf %+.2f%%\n", 100*(p-b)/b, 100*(f-b)/b }'
}
row "/bin/true" "$true_runs" /bin/true
row "loop $iters (~1s)" "$cpu_runs" "$loop" "$iters"

#!/usr/bin/env bash
# Launch cost and counting overhead of `pmc stat` vs `perf stat` vs the bare workload.
# Run by hand (never in CI): bash bench/stat_overhead.sh [TRUE_RUNS] [CPU_RUNS]
#
# The three variants run interleaved (bare, pmc, perf, bare, ...) so that load from other
# jobs and the host's CPU-speed swings hit all three alike. Reported per variant: the minimum
# (the run with the least interference: the fairest estimate of the cost itself) and the
# median wall time in ms; then the launch cost (tool - bare) and pmc's cost relative to perf's.
set -euo pipefail
cd "$(dirname "$0")/.."
true_runs=${1:-300}
cpu_runs=${2:-15}
make -s build workloads >/dev/null
pmc=./bin/pmc
loop=./workloads/build/$(uname -m)/loop
events=task-clock,page-faults,context-switches,cpu-migrations
command -v perf >/dev/null || { echo "perf not installed: apt-get install linux-perf" >&2; exit 1; }

now() { date +%s%N; }

# bench NAME RUNS CMD...: prints "NAME bare_min bare_med pmc_min pmc_med perf_min perf_med"
bench() {
	local name=$1 n=$2; shift 2
	local -a b=() p=() f=()
	for ((i = 0; i < n; i++)); do
		local t0
		t0=$(now); "$@" >/dev/null 2>&1 || true; b+=($(( $(now) - t0 )))
		t0=$(now); $pmc stat -e $events -o /dev/null -- "$@" >/dev/null 2>&1 || true; p+=($(( $(now) - t0 )))
		t0=$(now); perf stat -e $events -o /dev/null -- "$@" >/dev/null 2>&1 || true; f+=($(( $(now) - t0 )))
	done
	stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f %.3f", a[1]/1e6, m/1e6}'; }
	echo "$name $(stats "${b[@]}") $(stats "${p[@]}") $(stats "${f[@]}")"
}

report() {
	awk '{
		printf "%-24s bare %9.3f (med %9.3f)  pmc %9.3f (med %9.3f)  perf %9.3f (med %9.3f) ms\n", $1, $2, $3, $4, $5, $6, $7
		pc = $4 - $2; fc = $6 - $2
		printf "%-24s launch+count cost (min): pmc %.3f ms, perf %.3f ms, pmc/perf %.2f; overhead vs bare: pmc %+.2f%%, perf %+.2f%%\n", "", pc, fc, (fc > 0) ? pc / fc : 0, 100 * pc / $2, 100 * fc / $2
	}'
}

# about one second of CPU-bound work (loop: 2 instructions per iteration; N is zero-padded)
bench true "$true_runs" /bin/true | report
bench loop-1s "$cpu_runs" "$loop" 2500000000 | report

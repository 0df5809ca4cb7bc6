#!/usr/bin/env bash
# pmc top against perf top (run by hand, as root: both sample every CPU):
#
#   bash bench/top.sh cpu [PAIRS] [SECONDS]   CPU time of pmc top and perf top, each
#                                             sampling every CPU at their default 4000 Hz
#                                             for SECONDS (default 30) and printing to
#                                             /dev/null, in interleaved pairs (bench/pairs;
#                                             default 5 pairs): goal pmc <= 5% of one CPU
#   bash bench/top.sh soak [MINUTES] [FREQ]   pmc top --stdio at FREQ Hz (default 4000) for
#                                             MINUTES (default 60) beside a hot loop and a
#                                             process churn (a short-lived process every
#                                             ~10 ms): its RSS, peak RSS and CPU every 30 s;
#                                             goal: RSS flat after the first minutes
#
# It prints the load average first: on a shared machine say how loaded it was.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-cpu}
make -s build workloads >/dev/null
pmc=${PMC:-$PWD/bin/pmc}
loop=$PWD/workloads/build/$(uname -m)/loop
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $(date -u +%FT%TZ)"

case $mode in
cpu)
	command -v perf >/dev/null || { echo "perf not installed: apt-get install linux-perf" >&2; exit 1; }
	pairs=${2:-5}
	secs=${3:-30}
	go build -o "$tmp/pairs" ./bench/pairs
	# Both stop on SIGINT after SECONDS and exit 0; their CPU is user + system from wait4.
	"$tmp/pairs" -n "$pairs" -warmup 0 -label "top, ${secs} s" \
		-a "timeout --preserve-status -s INT $secs $pmc top --stdio -d 2" \
		-b "timeout --preserve-status -s INT $secs perf top --stdio -d 2"
	echo "(CPU % of one CPU = the CPU time above / ${secs} s)"
	;;
soak)
	minutes=${2:-60}
	freq=${3:-4000}
	sh -c 'while :; do "$0" 4000000000 >/dev/null; done' "$loop" &
	pids+=($!)
	sh -c 'while :; do /bin/true; sleep 0.01; done' &
	pids+=($!)
	"$pmc" top --stdio -F "$freq" -d 2 >"$tmp/out" 2>&1 &
	top=$!
	pids+=($top)
	tick=$(getconf CLK_TCK)
	printf '%8s %10s %10s %10s %8s\n' minute rss_kb peak_kb cpu_s cpu_pct
	start=$(date +%s)
	last_cpu=0
	last_t=$start
	while (( $(date +%s) - start < minutes * 60 )); do
		sleep 30
		kill -0 "$top" 2>/dev/null || { echo "pmc top ended:"; tail -5 "$tmp/out"; exit 1; }
		rss=$(awk '/^VmRSS/ {print $2}' /proc/$top/status)
		hwm=$(awk '/^VmHWM/ {print $2}' /proc/$top/status)
		read -r ut st < <(awk '{print $14, $15}' /proc/$top/stat)
		now=$(date +%s)
		cpu=$(echo "($ut + $st) / $tick" | bc -l)
		pct=$(echo "100 * ($cpu - $last_cpu) / ($now - $last_t)" | bc -l)
		printf '%8.1f %10d %10d %10.1f %7.2f%%\n' "$(echo "($now - $start) / 60" | bc -l)" "$rss" "$hwm" "$cpu" "$pct"
		last_cpu=$cpu
		last_t=$now
	done
	echo "last snapshot:"
	tail -12 "$tmp/out"
	;;
*)
	echo "usage: bench/top.sh cpu [PAIRS] [SECONDS] | soak [MINUTES] [FREQ]" >&2
	exit 2
	;;
esac

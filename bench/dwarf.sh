#!/usr/bin/env bash
# --call-graph dwarf report benchmark (issue 27), run by hand (never in CI):
#   bash bench/dwarf.sh [RUNS]      (SIZES=20000 for the smaller file alone)
# Records bench/deep.c built as distributions build code (-O2 -g -fomit-frame-pointer:
# chains 6 to 21 frames deep, no frame pointers) with perf record -e cpu-clock:u -F 20000
# --call-graph dwarf (8 KiB of stack per sample, perf's default) at about 20K and 200K
# samples, then for each file times pmc report --stdio against perf report --stdio with
# farm-bench (interleaved pairs A B A B; medians of RUNS, default 3, after a warm-up run
# each) and compares their rows. Prints the machine's load average first: the figures of
# a loaded machine are ratios, not speeds.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
command -v perf >/dev/null || { echo "dwarf.sh: perf not installed: apt-get install linux-perf" >&2; exit 1; }
command -v farm-bench >/dev/null || { echo "dwarf.sh: farm-bench not found" >&2; exit 1; }
make -s build >/dev/null
pmc=$PWD/bin/pmc
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -g -fomit-frame-pointer -o "$TMP/deep" bench/deep.c
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
samples() { perf script -F ip -G -i "$1" 2>/dev/null | wc -l; }
for target in ${SIZES:-20000 200000}; do
	f=$TMP/dwarf-$target.data
	# deep runs for a time: on a loaded machine it gets less of a CPU, so run it longer
	# until the file holds at least 90% of the samples wanted.
	secs=$((target / 20000))
	for _ in 1 2 3 4; do
		perf record -q -e cpu-clock:u -F 20000 --call-graph dwarf -o "$f" -- "$TMP/deep" "$secs" 2>/dev/null
		n=$(samples "$f")
		((n * 10 >= target * 9)) && break
		secs=$((secs * target * 11 / 10 / n + 1))
	done
	echo "== $n samples ($(du -m "$f" | cut -f1) MB): pmc report --stdio (A) vs perf report --stdio (B)"
	farm-bench -n "$runs" --timeout 3600 --vs "sh -c 'exec perf report --stdio -i $f >/dev/null 2>&1'" -- \
		sh -c "exec $pmc report --stdio -i $f >/dev/null 2>&1"
	rows() { grep -E '^ +[0-9]+\.[0-9]+% ' | tr -s ' '; }
	if diff <("$pmc" report --stdio --no-children -i "$f" 2>/dev/null | rows) <(perf report --stdio --no-children -i "$f" 2>/dev/null | rows) >/dev/null; then
		echo "rows: pmc and perf agree"
	else
		echo "rows: pmc and perf DIFFER:"
		diff <("$pmc" report --stdio --no-children -i "$f" 2>/dev/null | rows) <(perf report --stdio --no-children -i "$f" 2>/dev/null | rows) | head -10 || true
	fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

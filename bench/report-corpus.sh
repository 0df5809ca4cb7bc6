#!/usr/bin/env bash
# pmc report against perf report on every perf.data file of a directory, run by hand (never
# in CI): bash bench/report-corpus.sh [DIR] [RUNS]
#
# DIR defaults to test/perfcorpus/testdata/data (gzipped files are unpacked first). For each
# file: whether perf and pmc read it, whether their top-20 rows agree (--no-children, no
# binaries nor kernel symbols on either side, test/perfcorpus/rows.awk's rule), and each
# one's wall time, perf and pmc runs interleaved, best of RUNS (default 3), with pmc/perf.
# The last line gives the counts and the median ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-test/perfcorpus/testdata/data}
runs=${2:-3}
command -v perf >/dev/null || { echo "report-corpus.sh: perf not installed: apt-get install linux-perf" >&2; exit 1; }
make -s build >/dev/null
pmc=$PWD/bin/pmc
rows=$PWD/test/perfcorpus/rows.awk
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/empty" "$TMP/ids"
now() { date +%s.%N; }

printf '%-48s %5s %5s %6s %9s %9s %6s\n' file perf pmc top20 perf_s pmc_s ratio
nfiles=0 nperf=0 npmc=0 nagree=0
ratios=()
for src in "$dir"/*; do
	name=$(basename "$src" .gz)
	f=$TMP/$name
	case $src in *.gz) gzip -dc "$src" >"$f" ;; *) cp "$src" "$f" ;; esac
	nfiles=$((nfiles + 1))
	perf_ok=no pmc_ok=no agree=-
	if perf --buildid-dir "$TMP/ids" report --stdio --no-children -i "$f" --symfs "$TMP/empty" --kallsyms /dev/null \
		>"$TMP/perf.txt" 2>/dev/null && grep -q '^# Samples:' "$TMP/perf.txt"; then
		perf_ok=yes nperf=$((nperf + 1))
	fi
	if "$pmc" report --stdio --no-children -i "$f" --symfs "$TMP/empty" --kallsyms /dev/null >"$TMP/pmc.txt" 2>/dev/null; then
		pmc_ok=yes npmc=$((npmc + 1))
	fi
	if [ $perf_ok = yes ] && [ $pmc_ok = yes ]; then
		agree=no
		if cmp -s <("$rows" "$TMP/perf.txt") <("$rows" "$TMP/pmc.txt"); then agree=yes nagree=$((nagree + 1)); fi
	fi
	best_perf=999 best_pmc=999
	for _ in $(seq "$runs"); do
		t0=$(now)
		perf --buildid-dir "$TMP/ids" report --stdio --no-children -i "$f" --symfs "$TMP/empty" --kallsyms /dev/null >/dev/null 2>&1 || true
		t1=$(now)
		"$pmc" report --stdio --no-children -i "$f" --symfs "$TMP/empty" --kallsyms /dev/null >/dev/null 2>&1 || true
		t2=$(now)
		best_perf=$(echo "$t1 - $t0" | bc -l | awk -v b="$best_perf" '{print ($1 < b ? $1 : b)}')
		best_pmc=$(echo "$t2 - $t1" | bc -l | awk -v b="$best_pmc" '{print ($1 < b ? $1 : b)}')
	done
	ratio=$(awk -v a="$best_pmc" -v b="$best_perf" 'BEGIN {printf "%.2f", a / b}')
	ratios+=("$ratio")
	printf '%-48s %5s %5s %6s %9.3f %9.3f %6s\n' "$name" $perf_ok $pmc_ok $agree "$best_perf" "$best_pmc" "$ratio"
	rm -f "$f"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}')
echo "$nfiles files: perf reads $nperf, pmc $npmc; top-20 rows agree on $nagree; median pmc/perf time $median"

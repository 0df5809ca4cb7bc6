#!/usr/bin/env bash
# pmc report against perf report on every perf.data file of a directory, run by hand (never
# in CI): bash bench/report-corpus.sh [DIR] [PAIRS]
#   PMC=/path/to/pmc bash bench/report-corpus.sh   (another pmc binary, e.g. an older build)
#   ONLY=REGEX bash bench/report-corpus.sh          (only the files whose name matches)
#
# DIR defaults to test/perfcorpus/testdata/data (gzipped files are unpacked first). For each
# file: whether perf and pmc read it, whether their top-20 rows agree (--no-children, no
# binaries nor kernel symbols on either side, test/perfcorpus/rows.awk's rule), then two
# views timed in interleaved pairs (bench/pairs: pmc, perf, pmc, perf, ... after 2 warm-up
# pairs; PAIRS counted, default 10): "rows" is --no-children, "default" perf's default view
# (children when the file has call chains), both with the same no-symbols arguments. Per
# view: each tool's median CPU time (user + system, ms) and the median of the per-pair
# ratios pmc/perf; for the default view also the median peak RSS (MiB) and its ratio. The
# last lines give the counts, the median ratios and the files where pmc's CPU ratio is
# above 1. Quote ratios with the load average printed first and last.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-test/perfcorpus/testdata/data}
pairs=${2:-10}
command -v perf >/dev/null || { echo "report-corpus.sh: perf not installed: apt-get install linux-perf" >&2; exit 1; }
if [ -z "${PMC:-}" ]; then
	make -s build >/dev/null
	PMC=$PWD/bin/pmc
fi
pmc=$PMC
rows=$PWD/test/perfcorpus/rows.awk
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/empty" "$TMP/ids"
go build -o "$TMP/pairs" ./bench/pairs

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $(date -u +%FT%TZ); pmc: $pmc"
printf '%-44s %4s %4s %5s | %-20s | %-20s %-17s\n' "" "" "" "" "rows (--no-children)" "default view" ""
printf '%-44s %4s %4s %5s | %6s %6s %6s | %6s %6s %6s %5s %5s %5s\n' file perf pmc top20 \
	perf pmc ratio perf pmc ratio perfM pmcM ratio
nfiles=0 nperf=0 npmc=0 nagree=0
: >"$TMP/ratios"
for src in "$dir"/*; do
	name=$(basename "$src" .gz)
	[[ -z "${ONLY:-}" || $name =~ $ONLY ]] || continue
	f=$TMP/$name
	case $src in *.gz) gzip -dc "$src" >"$f" ;; *) cp "$src" "$f" ;; esac
	nfiles=$((nfiles + 1))
	common="--stdio -i $f --symfs $TMP/empty --kallsyms /dev/null"
	perf_ok=no pmc_ok=no agree=-
	if perf --buildid-dir "$TMP/ids" report $common --no-children >"$TMP/perf.txt" 2>/dev/null &&
		grep -q '^# Samples:' "$TMP/perf.txt"; then
		perf_ok=yes nperf=$((nperf + 1))
	fi
	if "$pmc" report $common --no-children >"$TMP/pmc.txt" 2>/dev/null; then
		pmc_ok=yes npmc=$((npmc + 1))
	fi
	if [ $perf_ok = yes ] && [ $pmc_ok = yes ]; then
		agree=no
		if cmp -s <("$rows" "$TMP/perf.txt") <("$rows" "$TMP/pmc.txt"); then agree=yes nagree=$((nagree + 1)); fi
	fi
	r1=$("$TMP/pairs" -tsv -allow-fail -n "$pairs" -label rows -a "$pmc report $common --no-children" \
		-b "perf --buildid-dir $TMP/ids report $common --no-children")
	r2=$("$TMP/pairs" -tsv -allow-fail -n "$pairs" -label default -a "$pmc report $common" \
		-b "perf --buildid-dir $TMP/ids report $common")
	# pairs -tsv: label, cpu (A B A/B), wall (A B A/B), RSS (A B A/B)
	read -r _ c1a c1b c1r _ _ _ _ _ _ <<<"$r1"
	read -r _ c2a c2b c2r _ _ _ m2a m2b m2r <<<"$r2"
	printf '%-44s %4s %4s %5s | %6.1f %6.1f %6.2f | %6.1f %6.1f %6.2f %5.1f %5.1f %5.2f\n' "$name" $perf_ok $pmc_ok $agree \
		"$c1b" "$c1a" "$c1r" "$c2b" "$c2a" "$c2r" "$m2b" "$m2a" "$m2r"
	echo "$name $c1r $c2r $m2r" >>"$TMP/ratios"
	rm -f "$f"
done
echo "$nfiles files: perf reads $nperf, pmc $npmc; top-20 rows agree on $nagree"
awk '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ r[NR] = $2; d[NR] = $3; m[NR] = $4; if ($2 > 1 || $3 > 1) slow = slow " " $1 "(" $2 "," $3 ")" }
END {
	printf "median pmc/perf: CPU rows %.2f, CPU default %.2f, peak RSS (default) %.2f\n", median(r, NR), median(d, NR), median(m, NR)
	print "pmc slower than perf (CPU ratio rows,default > 1):" (slow == "" ? " none" : slow)
}' "$TMP/ratios"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

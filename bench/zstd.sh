#!/usr/bin/env bash
# pmc record -z against perf record -z (issue 28): what compressing costs each recorder and
# what it saves, on the same workload, in interleaved pairs (bench/pairs: pmc, perf, pmc,
# perf, ...; CPU is user + system of the recorder and its workload, peak RSS its largest
# process); then pmc's zstd encoder alone against libzstd's (zstd -b1) on the same bytes,
# and pmc's start-up. Run by hand, never in CI:
#
#   bash bench/zstd.sh [PAIRS]        (default 10)
#
# The workload lists /usr/lib and gzips perf's binary, sampled on cpu-clock every 20 us of
# CPU time with call chains (about 50k samples a second): varied user and kernel stacks.
# On a shared machine quote the ratios, not the times, and the load average it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-10}
command -v perf >/dev/null || { echo "perf not installed: apt-get install linux-perf" >&2; exit 1; }
command -v zstd >/dev/null || { echo "zstd not installed: apt-get install zstd" >&2; exit 1; }
make -s build >/dev/null
pmc=${PMC:-$PWD/bin/pmc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pairs" ./bench/pairs
p() { "$tmp/pairs" "$@"; }
cat > "$tmp/work.sh" <<'W'
ls -lR /usr/lib/x86_64-linux-gnu /usr/share/doc >/dev/null 2>&1
gzip -c /usr/bin/perf >/dev/null
W
rec="-g -e cpu-clock -c 20000"

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; $(date -u +%FT%TZ)"
p -n "$pairs" -label "record -z" -a "$pmc record -z $rec -o $tmp/a.data -- sh $tmp/work.sh" \
	-b "perf record -q -z $rec -o $tmp/b.data -- sh $tmp/work.sh"
p -n "$pairs" -label "record, no -z" -a "$pmc record $rec -o $tmp/a.data -- sh $tmp/work.sh" \
	-b "perf record -q $rec -o $tmp/b.data -- sh $tmp/work.sh"
p -n "$pairs" -label "pmc: -z / no -z" -a "$pmc record -z $rec -o $tmp/a.data -- sh $tmp/work.sh" \
	-b "$pmc record $rec -o $tmp/a.data -- sh $tmp/work.sh"
p -n "$pairs" -label "perf: -z / no -z" -a "perf record -q -z $rec -o $tmp/b.data -- sh $tmp/work.sh" \
	-b "perf record -q $rec -o $tmp/b.data -- sh $tmp/work.sh"
echo

# What each wrote: the data section's size and the ratio each reports (records compressed
# over the COMPRESSED records holding them), three recordings each.
datasize() { od -An -t u8 -j 48 -N 8 "$1" | tr -d ' '; }
for i in 1 2 3; do
	"$pmc" record -z $rec -o "$tmp/a.data" -- sh "$tmp/work.sh" 2>"$tmp/a.err" >/dev/null
	perf record -z $rec -o "$tmp/b.data" -- sh "$tmp/work.sh" 2>"$tmp/b.err" >/dev/null
	printf 'run %d: pmc %9d bytes of data, ratio %s   perf %9d bytes of data, ratio %s\n' "$i" \
		"$(datasize "$tmp/a.data")" "$(grep -o 'ratio is [0-9.]*' "$tmp/a.err" | cut -d' ' -f3)" \
		"$(datasize "$tmp/b.data")" "$(grep -o 'ratio is [0-9.]*' "$tmp/b.err" | cut -d' ' -f3)"
done
echo

# The encoders alone, on the records of one uncompressed recording (its data section):
# pmc's (in chunks of 64000 bytes, as pmc record hands them over) and libzstd's level 1.
perf record -q $rec -o "$tmp/plain.data" -- sh "$tmp/work.sh" >/dev/null 2>&1
off=$(od -An -t u8 -j 40 -N 8 "$tmp/plain.data" | tr -d ' ')
dd if="$tmp/plain.data" of="$tmp/records" bs=1 skip="$off" count="$(datasize "$tmp/plain.data")" status=none
echo "encoders on $(stat -c %s "$tmp/records") bytes of perf's records (5 interleaved rounds):"
for i in 1 2 3 4 5; do
	ZSTD_BENCH_FILE=$tmp/records go test -run '^$' -bench EncodeFile -benchtime 20x ./internal/zstd |
		awk '/^BenchmarkEncodeFile/ {printf "  pmc level 1: %s MB/s, ratio %s\n", $5, $7}'
	zstd -b1 -i2 "$tmp/records" 2>&1 | tr '\r' '\n' | grep 'MB/s' | tail -1 |
		sed -E 's/.*\(x([0-9.]+)\), *([0-9.]+) MB\/s.*/  libzstd -1:  \2 MB\/s, ratio \1/'
done
echo

# Start-up: the encoder adds nothing to pmc's package initialisation.
n=$(GODEBUG=inittrace=1 "$pmc" version 2>&1 >/dev/null | grep -c '^init ' || true)
own=$(GODEBUG=inittrace=1 "$pmc" version 2>&1 >/dev/null | grep -c 'pmc/internal/zstd' || true)
echo "package inits of pmc version: $n; of pmc's zstd encoder: $own (nothing at init)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

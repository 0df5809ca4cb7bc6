#!/usr/bin/env bash
# make demo: the seeds' experiments on this machine with pmc's own commands.
#   1. what this machine can count, and why not (pmc doctor)
#   2. naive (ijk) vs loop-interchange (ikj) matmul, -novec and vectorised builds, and a 2D
#      array walked by row vs by column: pmc compare (mean +- sd, change with a 95% interval)
#   3. where there is no PMU: the same loop orders SIMULATED by cachegrind (pmc compare --sim);
#      and two simulated machines (last-level caches of 64 and 512 KiB), each result saved with
#      pmc stat --sim --json, then compared: labelled SIMULATED, the caches a machine difference
#   4. where the time goes inside the naive product: pmc record, pmc report, pmc annotate, and
#      the command that opens the recording in the web view (pmc report --http)
#   5. a quick pmc mem run (the memory hierarchy probe) over a reduced range
# Needs only `make demo` (builds bin/pmc and the workloads). About 20 s on an idle 2-core VM.
set -uo pipefail
cd "$(dirname "$0")/.."

PMC=./bin/pmc
WL=workloads/build/$(uname -m)
RUNS=${DEMO_RUNS:-3}
N=${DEMO_MATMUL_SIZE:-768}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for f in "$PMC" "$WL/matmul" "$WL/matmul-novec" "$WL/array2d-novec"; do
	[ -x "$f" ] || { echo "demo: $f is missing: run 'make demo' (it builds pmc and the workloads)" >&2; exit 1; }
done

say() { printf '\n=== %s\n' "$*"; }

say "pmc doctor: what this machine can count, and why not"
"$PMC" doctor
HAVEHW=0
if "$PMC" stat -x, -e cycles -- true 2>&1 >/dev/null | grep -q '^[0-9]'; then
	HAVEHW=1
fi
EVENTS=task-clock,page-faults
METRICS=()
if [ "$HAVEHW" = 1 ]; then
	EVENTS=$EVENTS,cycles,instructions,L1-dcache-loads,L1-dcache-load-misses
	METRICS=(-M ipc,l1d_miss_ratio)
fi

say "naive (ijk) vs interchange (ikj) matmul ${N}x${N}: pmc compare -r $RUNS (runs interleaved)"
"$PMC" compare -r "$RUNS" --warmup 1 -e "$EVENTS" "${METRICS[@]}" \
	-n naive-novec -n interchange-novec -n naive-vec -n interchange-vec \
	"$WL/matmul-novec --order ijk --size $N" "$WL/matmul-novec --order ikj --size $N" \
	"$WL/matmul --order ijk --size $N" "$WL/matmul --order ikj --size $N"

say "a 2D array by column vs by row: pmc compare -r $RUNS"
"$PMC" compare -r "$RUNS" -e "$EVENTS" -n by-column -n by-row \
	"$WL/array2d-novec --order col --rows 16384 --cols 1024" "$WL/array2d-novec --order row --rows 16384 --cols 1024"

if [ "$HAVEHW" = 0 ] && command -v valgrind >/dev/null && [ -z "${DEMO_NO_CACHEGRIND:-}" ]; then
	say "no PMU here: cache misses SIMULATED by cachegrind on a small 8 KiB 4-way L1D (pmc compare --sim), matmul-novec 200x200"
	"$PMC" compare -r 1 --sim --sim-cache D1=8192,4,64 -e instructions,L1-dcache-loads,L1-dcache-load-misses -n naive -n interchange \
		"$WL/matmul-novec --order ijk --size 200" "$WL/matmul-novec --order ikj --size 200"
fi

if command -v valgrind >/dev/null && [ -z "${DEMO_NO_CACHEGRIND:-}" ]; then
	say "two SIMULATED machines, saved then compared: pmc stat --sim --json with a 64 KiB and a 512 KiB last-level cache, then pmc compare of the files"
	for ll in 65536 524288; do
		"$PMC" stat --sim --sim-cache "D1=16384,4,32;LL=$ll,8,32" -e instructions,L1-dcache-load-misses,LLC-loads,LLC-load-misses \
			--json -o "$TMP/ll-$ll.json" -- "$WL/matmul-novec" --order ijk --size 120 >/dev/null 2>&1
	done
	"$PMC" compare -n LL-64K -n LL-512K "$TMP/ll-65536.json" "$TMP/ll-524288.json"
fi

if "$PMC" report --help >/dev/null 2>&1; then
	say "where the naive product spends its time: pmc record, then pmc report"
	# Kept in bin/ (not the temporary directory) for the web view offered below.
	DATA=bin/demo.perf.data
	"$PMC" record -g -o "$DATA" -- "$WL/matmul-novec" --order ijk --size "$N" >/dev/null
	"$PMC" report -i "$DATA" --stdio --no-children -g=false --percent-limit 2 | grep -v '^$' | head -20
	echo "its hottest instructions (pmc annotate main: '>' marks the 5 hottest):"
	"$PMC" annotate -i "$DATA" main | grep '^>'
	echo
	echo "to explore it in a browser (flame graph, top, source, disassembly; Ctrl-C stops):"
	echo "    $PMC report -i $DATA --http     # then open the URL it prints"
fi

say "pmc mem --max 64M --hops 262144 --samples 300 (the memory hierarchy probe, reduced range)"
"$PMC" mem --max 64M --hops 262144 --samples 300 --histograms none
echo
echo "full probe: ./bin/pmc mem (4 KiB..256 MiB, histograms per tier); JSON: ./bin/pmc mem --json"

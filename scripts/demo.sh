#!/usr/bin/env bash
# make demo: the seeds' headline experiment on this machine, under pmc stat.
#   1. naive (ijk) vs loop-interchange (ikj) matrix multiply, -novec and vectorised builds
#   2. a 2D array walked by row vs by column
#   3. where the time went: a comparison table (task-clock, elapsed, page-faults, and IPC and
#      L1D miss ratio when the machine has a hardware PMU), speedups
#   4. a SIMULATED cache view with valgrind cachegrind when there is no PMU (and valgrind is here)
#   5. a quick pmc mem run (the memory hierarchy probe) over a reduced range
# Needs only `make demo` (builds bin/pmc and the workloads). Runs in well under a minute.
set -uo pipefail
cd "$(dirname "$0")/.."

PMC=./bin/pmc
WL=workloads/build/$(uname -m)
RUNS=${DEMO_RUNS:-3}
N=${DEMO_MATMUL_SIZE:-1000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for f in "$PMC" "$WL/matmul" "$WL/matmul-novec" "$WL/array2d-novec"; do
	[ -x "$f" ] || { echo "demo: $f is missing: run 'make demo' (it builds pmc and the workloads)" >&2; exit 1; }
done

say() { printf '\n=== %s\n' "$*"; }

# --- what this machine can count --------------------------------------------------------
SW=task-clock,page-faults,context-switches
HWEV=cycles,instructions,L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses
# first CSV field of one event counted over /bin/true ("<not supported>" when absent)
probe() { "$PMC" stat -x, -e "$1" -- true 2>&1 >/dev/null | awk -F, -v e="$1" '$3==e {print $1}'; }

say "what this machine can count"
echo "kernel.perf_event_paranoid = $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"
if ! "$PMC" stat -x, -e task-clock -- true >/dev/null 2>"$TMP/probe.err"; then
	echo "pmc stat cannot count even software events here:"
	sed 's/^/  /' "$TMP/probe.err"
	echo "fix: sudo sysctl -w kernel.perf_event_paranoid=1   (then re-run make demo)"
	echo "continuing with what works (pmc mem needs no counters)"
	NOSTAT=1
else
	NOSTAT=0
fi
HAVEHW=0
c=$(probe cycles)
case "$c" in
"" | "<not supported>" | "<not counted>")
	echo "hardware events: NOT AVAILABLE (cycles: ${c:-error}). No hardware PMU is exposed here"
	echo "  (common in VMs): pmc stat counts software events only: $SW."
	echo "  IPC and cache miss ratios need a PMU; a simulated cache view follows (cachegrind)."
	EVENTS=$SW
	;;
*)
	echo "hardware events: available (cycles counted over /bin/true: $c)"
	EVENTS=$SW,$HWEV
	HAVEHW=1
	;;
esac

# --- the experiment ----------------------------------------------------------------------
# run NAME CMD...: pmc stat -r RUNS -x, into $TMP/NAME.csv (mean over the runs)
run() {
	local name=$1
	shift
	if [ "$NOSTAT" = 1 ]; then
		local t0 t1
		t0=$(date +%s%N)
		for _ in $(seq "$RUNS"); do "$@" >/dev/null; done
		t1=$(date +%s%N)
		awk -v ns=$((t1 - t0)) -v r="$RUNS" 'BEGIN{printf "%.2f,msec,task-clock,,,,0,\n", ns/1e6/r}' >"$TMP/$name.csv"
		return
	fi
	"$PMC" stat -r "$RUNS" -x, -e "$EVENTS" -o "$TMP/$name.csv" -- "$@" >/dev/null
}

say "naive (ijk) vs interchange (ikj) matmul, ${N}x${N} floats, and row vs column array2d (pmc stat -r $RUNS each)"
echo "headline run, as pmc stat prints it:"
if [ "$NOSTAT" = 0 ]; then
	"$PMC" stat -e "$EVENTS" -- "$WL/matmul-novec" --order ijk --size "$N" 2>&1 | grep -v '^pmc: hardware events' | sed 's/^/  /'
fi
run naive-novec "$WL/matmul-novec" --order ijk --size "$N"
run interchange-novec "$WL/matmul-novec" --order ikj --size "$N"
run naive-vec "$WL/matmul" --order ijk --size "$N"
run interchange-vec "$WL/matmul" --order ikj --size "$N"
run array2d-row "$WL/array2d-novec" --order row --rows 16384 --cols 1024
run array2d-col "$WL/array2d-novec" --order col --rows 16384 --cols 1024

# field NAME EVENT COLUMN: a column of the event's CSV row
field() { awk -F, -v e="$2" -v c="$3" '$3==e {print $c; exit}' "$TMP/$1.csv"; }
num() { case "$1" in "" | "<"*) echo "" ;; *) echo "$1" ;; esac; }

say "where the time went (mean of $RUNS runs; time = task-clock, the workload's CPU time)"
printf '%-20s %12s %10s %12s %10s' "workload" "task-clock" "elapsed" "page-faults" "ctx-sw"
[ "$HAVEHW" = 1 ] && printf ' %8s %10s %10s' "IPC" "L1D-miss%" "LLC-miss%"
printf '\n'
declare -A TC
for name in naive-novec interchange-novec naive-vec interchange-vec array2d-row array2d-col; do
	tc=$(num "$(field $name task-clock 1)")
	util=$(num "$(field $name task-clock 7)")
	pf=$(num "$(field $name page-faults 1)")
	cs=$(num "$(field $name context-switches 1)")
	TC[$name]=$tc
	el=""
	[ -n "$tc" ] && [ -n "$util" ] && el=$(awk -v t="$tc" -v u="$util" 'BEGIN{ if (u>0) printf "%.3f s", t/1000/u }')
	printf '%-20s %9s ms %10s %12s %10s' "$name" "${tc:-?}" "${el:-?}" "${pf:--}" "${cs:--}"
	if [ "$HAVEHW" = 1 ]; then
		cy=$(num "$(field $name cycles 1)")
		in=$(num "$(field $name instructions 1)")
		l1=$(num "$(field $name L1-dcache-loads 1)")
		l1m=$(num "$(field $name L1-dcache-load-misses 1)")
		ll=$(num "$(field $name LLC-loads 1)")
		llm=$(num "$(field $name LLC-load-misses 1)")
		awk -v cy="$cy" -v in="$in" -v l1="$l1" -v l1m="$l1m" -v ll="$ll" -v llm="$llm" 'BEGIN{
			ipc = (cy>0 && in!="") ? sprintf("%.2f", in/cy) : "n/a";
			l1r = (l1>0 && l1m!="") ? sprintf("%.2f", 100*l1m/l1) : "n/a";
			llr = (ll>0 && llm!="") ? sprintf("%.2f", 100*llm/ll) : "n/a";
			printf " %8s %10s %10s", ipc, l1r, llr }'
	fi
	printf '\n'
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a>0 && b>0) printf "%.2fx", a/b; else print "?" }'; }
echo
echo "speedup of interchange over naive (task-clock): -novec $(ratio "${TC[naive-novec]}" "${TC[interchange-novec]}"), vectorised $(ratio "${TC[naive-vec]}" "${TC[interchange-vec]}")"
echo "row over column array2d (task-clock): $(ratio "${TC[array2d-col]}" "${TC[array2d-row]}")"
echo "page-faults barely differ: the same memory is touched in both orders; the time goes to"
echo "cache and TLB misses of the strided walks, which only hardware events (or a simulator) show."

# --- simulated cache view ------------------------------------------------------------------
if [ "$HAVEHW" = 0 ] && command -v valgrind >/dev/null && [ -z "${DEMO_NO_CACHEGRIND:-}" ]; then
	say "SIMULATED cache view: pmc stat --sim (valgrind cachegrind, geometry from sysfs), matmul-novec 500x500"
	echo "these are a simulator's counts, not hardware events (no TLB, no prefetcher, no timing)"
	printf '%-20s %14s %14s %12s %10s\n' workload "instructions" "L1D loads" "L1D misses" "miss%"
	for o in ijk ikj; do
		name=naive-novec
		[ "$o" = ikj ] && name=interchange-novec
		"$PMC" stat --sim -x, -e instructions,L1-dcache-loads,L1-dcache-load-misses \
			-- "$WL/matmul-novec" --order "$o" --size 500 2>&1 >/dev/null |
			awk -F, -v name="$name" '/^#/ { next } $3=="instructions" { ir=$1 } $3=="L1-dcache-loads" { dr=$1 }
				$3=="L1-dcache-load-misses" { m=$1 }
				END { if (dr > 0) printf "%-20s %14d %14d %12d %9.2f%%  (SIMULATED)\n", name, ir, dr, m, 100*m/dr }'
	done
fi

# --- the memory hierarchy probe ------------------------------------------------------------
say "pmc mem --max 64M --hops 262144 --samples 300 (the memory hierarchy probe, reduced range)"
"$PMC" mem --max 64M --hops 262144 --samples 300 --histograms none
echo
echo "full probe: ./bin/pmc mem (4 KiB..256 MiB, histograms per tier); JSON: ./bin/pmc mem --json"

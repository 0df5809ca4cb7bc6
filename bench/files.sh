#!/usr/bin/env bash
# pmc report / annotate / diff against perf on small recordings, run by hand (never in CI):
#   bash bench/files.sh [PAIRS [DIR]]      (PAIRS: timed pairs per line, default 15)
#   PMC=/path/to/pmc bash bench/files.sh   (another pmc binary, e.g. an older build)
# DIR keeps the recordings (made there when it has none), so that two builds of pmc are
# timed on the same files: PMC=old bash bench/files.sh 15 /tmp/f; bash bench/files.sh 15 /tmp/f
#
# Records, in a temporary directory, a few small files with perf 6.1 (and one with pmc):
#   user      loop, cpu-clock:u (no kernel samples)
#   kernel    loop then dd from /dev/zero, cpu-clock (kernel samples, this kernel)
#   system    perf record -a of the same (every CPU, kernel samples)
#   foreign   system with its kernel build-id changed: a recording of another kernel, whose
#             kernel addresses neither tool may name from this machine's /proc/kallsyms
#   deep      bench/deep.c with -g (call chains; no kernel samples), deep2 a second run
#   pmc       pmc record of loop
# then times each command against perf's in interleaved pairs (pmc, perf, pmc, perf...,
# after one warm-up run each) and prints per line the median wall and CPU (user + system,
# children included: perf annotate's objdump) seconds of each tool and the median of the
# pairwise ratios pmc/perf (below 1: pmc is faster), and the same of each run's peak RSS (the
# largest process of the run, from wait4). Needs perf, python3, cc.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-15}
for t in perf python3 cc; do
	command -v "$t" >/dev/null || { echo "files.sh: $t is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
if [ -z "${PMC:-}" ]; then
	make -s build workloads >/dev/null
	PMC=$PWD/bin/pmc
fi
loop=$PWD/workloads/build/$(uname -m)/loop
[ -x "$loop" ] || make -s workloads >/dev/null
if [ -n "${2:-}" ]; then
	mkdir -p "$2"
	TMP=$(cd "$2" && pwd)
else
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
fi
# record makes the recordings in $TMP.
record() {
	cc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$TMP/deep" bench/deep.c

	rec() { perf record -q -o "$TMP/$1.data" "${@:2}" >/dev/null 2>&1; }
	work="'$loop' 200000000 >/dev/null; dd if=/dev/zero of=/dev/null bs=4k count=100000 2>/dev/null"
	rec user -e cpu-clock:u -F 1000 -- "$loop" 300000000
	rec kernel -e cpu-clock -F 1000 -- sh -c "$work"
	rec system -a -e cpu-clock -F 500 -- sh -c "$work"
	rec deep -e cpu-clock -F 1000 -g -- "$TMP/deep" 0.5
	rec deep2 -e cpu-clock -F 1000 -g -- "$TMP/deep" 0.3
	"$PMC" record -e cpu-clock -F 1000 -o "$TMP/pmc.data" -- "$loop" 300000000 >/dev/null 2>&1
	# foreign: the kernel's build-id in the BUILD_ID feature, every byte inverted.
	python3 - "$TMP/system.data" "$TMP/foreign.data" <<'PY'
import subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
ids = subprocess.run(["perf", "buildid-list", "-i", src], capture_output=True, text=True).stdout
kid = next((l.split()[0] for l in ids.splitlines() if l.endswith("[kernel.kallsyms]")), None)
data = open(src, "rb").read()
if kid:
    b = bytes.fromhex(kid)
    data = data.replace(b, bytes(x ^ 0xff for x in b))
open(dst, "wb").write(data)
PY
}
if [ -f "$TMP/foreign.data" ]; then
	echo "files.sh: timing the recordings in $TMP" >&2
else
	record
fi

python3 - "$PMC" "$TMP" "$pairs" <<'PY'
import os, statistics, subprocess, sys, time
pmc, d, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
f = lambda n: os.path.join(d, n + ".data")
for n in ("user", "kernel", "system", "foreign", "deep", "deep2", "pmc"):
    ids = subprocess.run(["perf", "buildid-list", "-i", f(n)], capture_output=True, text=True).stdout
    k = next((l.split()[0][:12] for l in ids.splitlines() if l.endswith("[kernel.kallsyms]")), None)
    print(f"{n}.data: {os.path.getsize(f(n))} bytes, " + (f"kernel samples (build-id {k}...)" if k else "no kernel build-id listed"))
lines = [("report " + n, [pmc, "report", "--stdio", "-i", f(n)], ["perf", "report", "--stdio", "-i", f(n)])
         for n in ("user", "kernel", "system", "foreign", "deep", "pmc")]
lines += [
    ("report --no-children deep", [pmc, "report", "--stdio", "--no-children", "-i", f("deep")],
     ["perf", "report", "--stdio", "--no-children", "-i", f("deep")]),
    ("annotate leaf", [pmc, "annotate", "--stdio", "-i", f("deep"), "leaf"],
     ["perf", "annotate", "--stdio", "-i", f("deep"), "leaf"]),
    ("annotate --no-source leaf", [pmc, "annotate", "--stdio", "--no-source", "-i", f("deep"), "leaf"],
     ["perf", "annotate", "--stdio", "--no-source", "-i", f("deep"), "leaf"]),
    ("diff user pmc", [pmc, "diff", f("user"), f("pmc")], ["perf", "diff", f("user"), f("pmc")]),
    ("diff system foreign", [pmc, "diff", f("system"), f("foreign")], ["perf", "diff", f("system"), f("foreign")]),
    ("diff -g=false deep2 deep", [pmc, "diff", "-g=false", f("deep2"), f("deep")], ["perf", "diff", f("deep2"), f("deep")]),
    # perf diff has no children table: pmc does more here.
    ("diff -g deep2 deep", [pmc, "diff", "-g", f("deep2"), f("deep")], ["perf", "diff", f("deep2"), f("deep")]),
]

def run(cmd):
    # wait4 gives this run's own CPU time and peak RSS (its largest process).
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = 0  # reaped here
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024

print(f"load average: {' '.join(open('/proc/loadavg').read().split()[:3])} on {os.cpu_count()} CPUs")
print(f"{pairs} interleaved pairs per line; medians; ratio = median of pmc/perf per pair")
print(f"{'':27} {'pmc wall':>9} {'perf wall':>9} {'ratio':>6}   {'pmc cpu':>8} {'perf cpu':>8} {'ratio':>6}   {'pmc MiB':>7} {'perf MiB':>8} {'ratio':>6}")
for name, a, b in lines:
    run(a), run(b)
    wa, wb, ca, cb, ma, mb = [], [], [], [], [], []
    for _ in range(pairs):
        x, y = run(a), run(b)
        wa.append(x[0]); ca.append(x[1]); ma.append(x[2]); wb.append(y[0]); cb.append(y[1]); mb.append(y[2])
    m = statistics.median
    rw = m([x / y for x, y in zip(wa, wb)])
    rc = m([x / y for x, y in zip(ca, cb) if y > 0]) if any(cb) else float("nan")
    rm = m([x / y for x, y in zip(ma, mb)])
    print(f"{name:27} {m(wa):9.3f} {m(wb):9.3f} {rw:6.2f}   {m(ca):8.3f} {m(cb):8.3f} {rc:6.2f}   {m(ma):7.1f} {m(mb):8.1f} {rm:6.2f}")
print(f"load average: {' '.join(open('/proc/loadavg').read().split()[:3])}")
PY

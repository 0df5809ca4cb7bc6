#!/bin/sh
# Records kernel.data and the machine snapshot beside it (run as root on an x86_64 machine
# with perf 6.1 and python3; see README.md). Then `go test ./internal/cli -run
# TestReportKernel -update` rewrites perf's outputs and the symbol archive on this machine
# (the kernel recorded must still be the one running).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
perf record -q -e cpu-clock -F 2000 -o "$here/kernel.data" -- sh -c \
	'for i in $(seq 100); do cat /proc/self/status >/dev/null; done; dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null'
perf script -i "$here/kernel.data" -F ip >ips.txt
mkdir -p "$here/machine/sys/kernel" "$here/machine/proc"
cp /sys/kernel/notes "$here/machine/sys/kernel/notes"
# Of /proc/kallsyms, _text and the symbols that hold a sampled kernel address with the ones
# after them (where perf ends them).
python3 - "$here/machine/proc/kallsyms" <<'PY'
import bisect, sys
syms = sorted((int(l.split()[0], 16), i, l.rstrip("\n")) for i, l in enumerate(open("/proc/kallsyms")))
addrs = sorted({a for a, _, _ in syms})
text = sorted({a for a, _, l in syms if l.split()[1] in "tTwW"})
keep = {a for a, _, l in syms if l.split()[2] == "_text"}
for ip in {int(x, 16) for x in open("ips.txt").read().split()}:
    i = bisect.bisect_right(text, ip) - 1
    if ip < 1 << 63 or i < 0:
        continue
    keep.add(text[i])
    j = bisect.bisect_right(addrs, text[i])
    if j < len(addrs):
        keep.add(addrs[j])
open(sys.argv[1], "w").write("".join(l + "\n" for a, _, l in syms if a in keep))
PY

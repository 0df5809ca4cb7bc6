#!/bin/sh
# Rewrites testdata/: records the x86-64 recordings with perf (and one with pmc), writes
# each one's symbol archive from this machine's binaries (mkarchive) and perf's own output
# for each view the test compares (testdata/perf/FILE.VIEW.txt). Needs perf (6.1 made the
# committed files), gcc, make, Go and the C library's debug file (Debian: libc6-dbg); run
# as a user perf may sample with; scripts/update-perf-goldens.sh runs it. Not pmc's -update:
# the truth here is perf's, and the recordings are remade with it (the binaries they name
# must exist for perf to unwind).
# The guests' recordings (guest.*) come from test/qemu instead: see testdata/README.md.
set -eu
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$root/workloads" BUILD="$tmp/wl" host
cc="$tmp/wl/$(uname -m)/callchain"
go build -o "$tmp/pmc" "$root/cmd/pmc"
go build -o "$tmp/mkarchive" ./mkarchive
d=testdata/data
rm -f "$d"/here.* "$d"/synth.*
w=$tmp/data
mkdir "$w"
perf record -q -e cpu-clock:u -F 1000 --call-graph dwarf -o "$w/here.callchain.data" -- "$cc" 100000000 >/dev/null
perf record -q -e cpu-clock:u -F 1000 --call-graph dwarf,128 -o "$w/here.short.data" -- "$cc" 100000000 >/dev/null
perf record -q -e cpu-clock:u -F 500 --call-graph dwarf -o "$w/here.ls.data" -- \
	sh -c 'ls -lR /usr/lib/x86_64-linux-gnu >/dev/null; gzip -c /usr/bin/perf >/dev/null'
"$tmp/pmc" record -e cpu-clock:u -F 1000 --call-graph dwarf -o "$w/here.pmc.data" -- "$cc" 100000000 >/dev/null 2>&1
"$tmp/mkarchive" "$w"/*.data
go run ./mklbr "$w/synth.lbr.data" # no binary, no archive: its addresses stay addresses
for f in "$w"/*.data; do
	name=$(basename "$f")
	perf report --stdio --no-children -i "$f" 2>/dev/null | grep -v '^# (Tip: .*)$' > "testdata/perf/$name.no-children.txt"
	perf report --stdio --children -i "$f" 2>/dev/null | grep -v '^# (Tip: .*)$' > "testdata/perf/$name.children.txt"
	perf report --stdio --no-children -g caller -i "$f" 2>/dev/null | grep -v '^# (Tip: .*)$' > "testdata/perf/$name.caller.txt"
	perf script -i "$f" 2>/dev/null > "testdata/perf/$name.script.txt"
	gzip -9n < "$f" > "$d/$name.gz"
	if [ -e "$f.pmcsym" ]; then cp "$f.pmcsym" "$d/$name.pmcsym"; fi
done

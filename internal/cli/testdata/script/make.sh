#!/bin/sh
# Re-records pmc's own recordings for pmc script's goldens (root, x86_64, gcc, perf; run from
# anywhere): see README.md. Afterwards, on the same machine, `go test ./internal/cli -run
# TestScriptAgreesWithPerf -update-perf` rewrites perf script's outputs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
work=/tmp/pmc-script
mkdir -p "$work"
cd "$repo" && go build -o "$work/pmc" ./cmd/pmc
cd "$work"
gcc -std=gnu11 -O2 -g -fno-inline -fno-omit-frame-pointer -static-pie -I"$repo/include" \
	-o array2d "$repo/workloads/src/array2d.c" -lm
./pmc record -g -e cpu-clock -F 500 --embed-symbols -o "$here/pmc-g.data" -- \
	./array2d --order col --rows 131072 --cols 64 >/dev/null
./pmc record -a -e cpu-clock -F 100 --embed-symbols -o "$here/pmc-a.data" -- sleep 0.3
rm -f "$here"/*.old

#!/bin/sh
# Rebuilds the binaries and re-records the perf.data files of this directory (run as root on
# an x86_64 machine with perf and gcc; the goldens were made with perf 6.1, gcc 12). Then
# `go test ./internal/cli -run 'TestAnnotateAgreesWithPerf|TestDiffAgreesWithPerf' -update-perf`
# rewrites perf's outputs and the symbol archives from this machine (-update: pmc's goldens).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
W=/tmp/pmc-annotate            # the path the recordings name: keep it
rm -rf "$W" && mkdir -p "$W/src"
cp "$repo/workloads/src/array2d.c" "$repo/workloads/src/wl.h" "$repo/workloads/src/spin.h" "$W/src/"
cd "$W/src"
# -fno-inline keeps assign and squares as functions of their own; dynamic, so the binary is small.
gcc -std=gnu11 -O2 -g -fno-inline -Wall -o "$W/array2d-col" array2d.c -lm
cp "$W/array2d-col" "$W/array2d-row"   # the same code under two names, as ./naive vs ./interchange
cd "$W"
perf record -q -e cpu-clock -c 250000 -o col.data -- ./array2d-col --order col --rows 131072 --cols 64
perf record -q -e cpu-clock -c 250000 -o row.data -- ./array2d-row --order row --rows 131072 --cols 64
perf record -q -e cpu-clock -c 250000 -g -o colg.data -- ./array2d-col --order col --rows 131072 --cols 64
perf record -q -e cpu-clock -c 250000 -g -o rowg.data -- ./array2d-row --order row --rows 131072 --cols 64
mkdir -p "$here/symfs$W"
cp "$W/array2d-col" "$W/array2d-row" "$here/symfs$W/"
cp col.data row.data colg.data rowg.data "$here/"

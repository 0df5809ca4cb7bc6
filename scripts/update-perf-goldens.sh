#!/usr/bin/env bash
# Rewrites the reference files made by running perf, which pmc's output is checked against:
# perf report, annotate and diff outputs (internal/cli/testdata/perf-report, .../annotate),
# the symbol archives (FILE.pmcsym) of the perf.data files they read, the perf stat -vv
# attrs (internal/events/testdata/perf-vv) and perf report's rows on the foreign perf.data
# corpus (test/perfcorpus/testdata/perf), the --call-graph dwarf recordings and perf's reports
# and scripts of them (test/dwarfcorpus/testdata). `go test -update` rewrites only pmc's own goldens,
# never these. Run it as root on the machine that recorded the data (the READMEs beside them
# say which: perf 6.1 on the x86_64 VM); elsewhere perf resolves other symbols and prints
# other numbers. Review the result with git diff.
#
# Tests that write such files check golden.UpdatingPerf() (go test -update-perf, or
# PMC_UPDATE_PERF_GOLDEN=1 as here) and have AgreesWithPerf in their name; RUN=PATTERN
# selects others.
set -euo pipefail
cd "$(dirname "$0")/.."
PMC_UPDATE_PERF_GOLDEN=1 go test -count=1 -run "${RUN:-AgreesWithPerf}" ./...
sh internal/events/testdata/perf-vv/record.sh
sh test/perfcorpus/regen.sh
sh test/dwarfcorpus/regen.sh
git status --short -- '*/testdata/*'

#!/usr/bin/env bash
# make test-stress: the Go tests (not the QEMU guests) with CPU hogs beside them, as on a
# loaded shared machine. HOGS busy loops (default: the number of CPUs + 2) run for the whole
# test run and are killed at the end, also when the tests fail or the script is interrupted.
# Arguments go to go test instead of ./... (a package, -run NAME, -v):
#   scripts/test-stress.sh ./internal/launch -run TestForward
#   HOGS=8 scripts/test-stress.sh
set -euo pipefail
cd "$(dirname "$0")/.."
hogs=${HOGS:-$(($(nproc) + 2))}
pids=()
gotest=
stop() {
	[[ -n $gotest ]] && kill "$gotest" 2>/dev/null
	((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for ((i = 0; i < hogs; i++)); do
	(while :; do :; done) &
	pids+=($!)
done
echo "test-stress: $hogs CPU hogs on $(nproc) CPUs (pids ${pids[*]}); load average $(cut -d' ' -f1-3 /proc/loadavg)"
# go test in the background and a wait, which a signal interrupts (a foreground command
# would hold the traps until it ended). The timeout is go test's 10 minutes a package times
# three: internal/disasm's objdump comparisons took 6-7 minutes beside the hogs, and over 10
# at load average 38.
status=0
go test -count=1 -timeout 30m "${@:-./...}" &
gotest=$!
wait "$gotest" || status=$?
gotest=
echo "test-stress: go test exited $status; load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status

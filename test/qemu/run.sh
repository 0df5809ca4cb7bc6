#!/usr/bin/env bash
# `make test-qemu`: tests pmc's hardware path on emulated ARM PMUs (arm64 cortex-a57 and
# armv7 cortex-a7 guests under QEMU with -icount shift=0, where instruction counts are exact).
# Phases: deps (apt, when missing) -> kernels (download once into .cache/qemu) -> go test
# (builds pmc, workloads, the guest /init and probe, boots each guest once).
# Extra arguments go to `go test` (e.g. -run Probe). Set PMC_QEMU_VERBOSE=0 for quiet output.
set -euo pipefail
cd "$(dirname "$0")/../.."

ms() { date +%s%3N; }
secs() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
t_all=$(ms)
phase() { # name command...
	local t0 t1 name=$1
	shift
	t0=$(ms)
	echo "== qemu: $name"
	local st=0
	"$@" || st=$?
	echo "== qemu: $name took $(secs $(($(ms) - t0)))s$( ((st)) && echo " and FAILED (exit $st)")"
	return $st
}

phase deps ./scripts/deps.sh
phase kernels ./test/qemu/kernels.sh
v=-v
[[ "${PMC_QEMU_VERBOSE:-1}" == 0 ]] && v=
st=0
# go test's own 10 minute limit is shorter than a loaded machine needs for both guests'
# batches (the error-bound test's 100 runs alone take minutes of emulation); each guest's
# boot is bounded by the harness (15 min, PMC_QEMU_TIMEOUT).
phase "go test" env PMC_QEMU=1 go test -count=1 -timeout 40m $v "$@" ./test/qemu || st=$?
echo "== qemu: total $(secs $(($(ms) - t_all)))s"
exit $st

// Package qemu tests pmc's hardware path on real kernel PMU drivers: Debian's arm64 and armmp
// kernels booted under QEMU (cortex-a57 with armv8_pmuv3, cortex-a7 with armv7_cortex_a7) with
// `-icount shift=0`, where retired-instruction counts are exact and repeatable.
//
// The guest tests boot nothing unless PMC_QEMU=1 (set by test/qemu/run.sh, `make test-qemu`).
// With CI=true a missing prerequisite (kernel, qemu, cross compiler) fails instead of skipping.
// Each guest boots once per test binary with every command of its batch (see batch.go); the
// guest's /init (guestinit/) prints each command's output between markers (console.go) and
// powers off. probe/ is an independent perf_event_open reader used as ground truth.
//
// The non-guest parts (cpio writer, console parser, DTB patch) have ordinary unit tests.
package qemu

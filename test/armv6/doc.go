// Package armv6 tests the armv6 build of pmc (GOARCH=arm GOARM=6: the ARM1176 of the
// Raspberry Pi 1 and Zero) on this machine, under QEMU user mode (qemu-arm -cpu arm1176,
// Debian's qemu-user), and checks its machine code for instructions beyond ARMv6.
//
// Under user mode the emulator passes most system calls to the host kernel, but not
// perf_event_open (ENOSYS), and without binfmt_misc pmc cannot re-execute itself as the
// launch shim: the tests check that pmc says so in one line rather than count. Everything
// else runs as on a Pi: version, list, explain, doctor, mem, and the fake backend's stat and
// report of recorded perf.data files, whose output must equal this machine's own build's.
package armv6

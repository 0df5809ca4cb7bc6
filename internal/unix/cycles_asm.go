//go:build amd64 || arm64

package unix

// CycleCounterArch names the user-space counter read pmc has on this architecture.
const CycleCounterArch = cycleCounterArch

// CycleTimedLoad returns buf[i] and the change of hardware counter `counter` over the load
// (raw; mask it to the counter's width). Only call it when the counter's perf page says
// cap_user_rdpmc and an index: otherwise the read faults (SIGSEGV on x86, SIGILL on arm64).
//
//go:noescape
func CycleTimedLoad(buf *uint32, i uint32, counter uint32) (next uint32, delta uint64)

// CycleTimedNothing is CycleTimedLoad's interval without the load.
//
//go:noescape
func CycleTimedNothing(counter uint32) uint64

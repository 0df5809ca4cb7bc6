//go:build !amd64 && !arm64

package unix

// CycleCounterArch is empty: pmc has no user-space counter read on this architecture
// (32-bit ARM Linux keeps PMUSERENR kernel-only).
const CycleCounterArch = ""

// CycleTimedLoad is never called where CycleCounterArch is "".
func CycleTimedLoad(buf *uint32, i uint32, counter uint32) (uint32, uint64) {
	panic("unix: no user-space cycle counter on this architecture")
}

// CycleTimedNothing is never called where CycleCounterArch is "".
func CycleTimedNothing(counter uint32) uint64 {
	panic("unix: no user-space cycle counter on this architecture")
}

package record

import (
	"fmt"

	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/unix"
	"github.com/pmc-tools/pmc/internal/unwind"
)

// DefaultUserStack is --call-graph dwarf's default copy of the user stack per sample:
// perf's 8 KiB.
const DefaultUserStack = 8192

// MaxUserStack is the largest copy a sample can hold (a record is at most 64 KiB): perf's
// limit, USHRT_MAX rounded down to 8 bytes.
const MaxUserStack = 65528

// dwarfSampling makes a sample --call-graph dwarf's, as perf record does: the kernel's call
// chain without its user part, the user registers of perf's mask for the machine and size
// bytes of user stack, from which pmc report (or perf) unwinds the user callers.
func dwarfSampling(a perfevent.Attr, size uint32) perfevent.Attr {
	a.SampleType |= perfevent.SampleCallchain | perfevent.SampleRegsUser | perfevent.SampleStackUser
	a.ExcludeCallchainUser = true
	a.SampleRegsUser = userRegsMask()
	a.SampleStackUser = size
	return a
}

// userRegsMask is perf's register mask for the running kernel's architecture.
func userRegsMask() uint64 {
	_, machine, _ := unix.Uname()
	switch unwind.RecordingArch(machine, 0) {
	case unwind.X86_64:
		return unwind.MaskX86_64
	case unwind.ARM64:
		return unwind.MaskARM64
	case unwind.ARM:
		return unwind.MaskARM
	}
	return 0
}

// checkUserStack refuses a --call-graph dwarf pmc cannot record or unwind.
func checkUserStack(size uint32) error {
	switch {
	case size == 0:
		return nil
	case size%8 != 0 || size > MaxUserStack:
		return fmt.Errorf("--call-graph dwarf,%d: the stack copy is a multiple of 8 bytes up to %d", size, MaxUserStack)
	case userRegsMask() == 0:
		_, machine, _ := unix.Uname()
		return fmt.Errorf("--call-graph dwarf on %s: pmc unwinds x86-64, arm64 and 32-bit ARM only; use -g (frame pointers)", machine)
	}
	return nil
}

package mem

import (
	"fmt"
	"runtime"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Single-hop timers, best first: the hardware cycle counter read from user space ("rdpmc" on
// x86-64, "pmccntr" on arm64: no system call, ticks are cycles), then the x86 time-stamp
// counter ("tsc"), then the OS clock ("monotonic", whose own cost of 144-224 ns on the ARM
// guests dwarfs a cache hit).
const (
	TimerRdpmc     = "rdpmc"
	TimerPmccntr   = "pmccntr"
	TimerTSC       = "tsc"
	TimerMonotonic = "monotonic"
)

// isCycleTimer reports whether ticks of this timer are core cycles.
func isCycleTimer(name string) bool { return name == TimerRdpmc || name == TimerPmccntr }

// TimerFacts decide whether single hops can be timed with the cycle counter.
type TimerFacts struct {
	Arch  string // GOARCH
	Instr string // the user-space counter read pmc has here (unix.CycleCounterArch), "" none
	// CyclesErr is why the hardware cycles event could not be opened, "" when it was.
	CyclesErr string
	// From the cycles event's perf mmap page: cap_user_rdpmc and index (counter + 1).
	CapUserRdpmc bool
	Index        uint32
	// PerfUserAccess is /proc/sys/kernel/perf_user_access; Known false when it is missing.
	PerfUserAccess      string
	PerfUserAccessKnown bool
}

// armCycleIndex is the index the arm64 PMU driver publishes for its dedicated cycle counter
// (ARMV8_IDX_CYCLE_COUNTER_USER).
const armCycleIndex = 32

// ChooseTimer says whether the cycle counter can time single hops and, when it cannot, why
// and what would let it (the note is printed and written to JSON as clock.ticks_note).
func ChooseTimer(f TimerFacts) (useCycles bool, note string) {
	switch {
	case f.Instr == "" && f.Arch == "arm":
		return false, "32-bit ARM Linux does not let user space read the cycle counter (the kernel " +
			"leaves PMUSERENR at 0; perf_user_access exists on arm64 only)"
	case f.Instr == "":
		return false, "pmc has no user-space cycle counter read on " + f.Arch
	case f.CyclesErr != "":
		return false, "no hardware cycles event to read from user space (" + f.CyclesErr + ")"
	case f.Arch == "arm64" && !f.PerfUserAccessKnown:
		return false, "the kernel has no /proc/sys/kernel/perf_user_access (Linux 5.17 or later): " +
			"user space cannot read the cycle counter"
	case f.Arch == "arm64" && f.PerfUserAccess != "1":
		return false, fmt.Sprintf("user-space counter reads are off (kernel.perf_user_access = %s): "+
			"run `sysctl -w kernel.perf_user_access=1` as root to time single hops with the cycle counter",
			f.PerfUserAccess)
	case !f.CapUserRdpmc || f.Index == 0:
		if f.Arch == "amd64" {
			return false, "the kernel does not allow RDPMC on the cycles counter (cap_user_rdpmc 0; " +
				"/sys/bus/event_source/devices/cpu/rdpmc is 0?)"
		}
		return false, "the kernel did not grant user-space reads of the cycles counter (cap_user_rdpmc 0)"
	case f.Arch == "arm64" && f.Index != armCycleIndex:
		return false, fmt.Sprintf("the cycles event is not on the dedicated cycle counter (index %d, want %d)",
			f.Index, armCycleIndex)
	}
	return true, ""
}

// timer times single hops: hop returns buf[i] and the ticks of the load (ok false when the
// counter could not be read this time), nothing the ticks of an empty interval.
type timer struct {
	name    string
	hop     func(buf *uint32, i uint32) (next uint32, ticks uint64, ok bool)
	nothing func() (uint64, bool)
}

// clockTimer is the fallback: the TSC on x86-64, else the monotonic clock.
func clockTimer() timer {
	return timer{name: tickSource,
		hop: func(buf *uint32, i uint32) (uint32, uint64, bool) {
			n, t := timedHop(buf, i)
			return n, t, true
		},
		nothing: func() (uint64, bool) { return timedNothing(), true }}
}

// cycleTimer reads the hardware counter the cycles event's perf page names, checking the
// index before every read (it is 0 while the event is not on the CPU).
func cycleTimer(page []byte) timer {
	width := unix.LoadUint16(page, unix.PerfPagePMCWidth)
	mask := ^uint64(0)
	if width > 0 && width < 64 {
		mask = 1<<width - 1
	}
	counter := func() (uint32, bool) {
		idx := unix.LoadUint32(page, unix.PerfPageIndex)
		if idx == 0 || runtime.GOARCH == "arm64" && idx != armCycleIndex {
			return 0, false
		}
		return idx - 1, true
	}
	return timer{name: unix.CycleCounterArch,
		hop: func(buf *uint32, i uint32) (uint32, uint64, bool) {
			c, ok := counter()
			if !ok {
				return i, 0, false
			}
			n, d := unix.CycleTimedLoad(buf, i, c)
			return n, d & mask, true
		},
		nothing: func() (uint64, bool) {
			c, ok := counter()
			if !ok {
				return 0, false
			}
			return unix.CycleTimedNothing(c) & mask, true
		}}
}

// pageFacts reads the cycles counter's perf page into f.
func pageFacts(f *TimerFacts, page []byte) {
	if len(page) < unix.PerfPagePMCWidth+2 {
		return
	}
	f.CapUserRdpmc = unix.LoadUint64(page, unix.PerfPageCapabilities)&unix.PerfCapUserRdpmc != 0
	f.Index = unix.LoadUint32(page, unix.PerfPageIndex)
}

// cycleTickNS measures ns per cycle over about d with the cycles counter read through the
// kernel (user-space cycles of a busy loop over monotonic time).
func cycleTickNS(cs *counterSet, d time.Duration) float64 {
	if cs.cycles < 0 {
		return 0
	}
	c := cs.ctrs[cs.cycles]
	v0, err := c.Read()
	t0 := time.Now()
	for time.Since(t0) < d {
	}
	v1, err1 := c.Read()
	ns := time.Since(t0)
	if err != nil || err1 != nil || v1.Raw <= v0.Raw {
		return 0
	}
	return float64(ns) / float64(v1.Raw-v0.Raw)
}

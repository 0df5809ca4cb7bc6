package perfevent

import (
	"errors"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Encode converts a to the kernel's struct perf_event_attr layout. It is a pure function, so
// every encoding is testable without a PMU. Config3 is not in x/sys's layout (it needs
// PERF_ATTR_SIZE_VER8); a non-zero Config3 is an error rather than silently dropped.
func Encode(a Attr) (*unix.PerfEventAttr, error) {
	if a.Config3 != 0 {
		return nil, errors.New("config3 is not supported by this build")
	}
	if a.PreciseIP > 3 {
		return nil, errors.New("precise_ip must be 0..3")
	}
	k := &unix.PerfEventAttr{
		Type:        a.Type,
		Size:        unix.PerfEventAttrSize,
		Config:      a.Config,
		Sample:      a.SamplePeriod,
		Sample_type: a.SampleType,
		Read_format: a.ReadFormat,
		Wakeup:      a.WakeupEvents,
		Bp_type:     a.BPType,
		Ext1:        a.Config1,
		Ext2:        a.Config2,

		Sample_regs_user:  a.SampleRegsUser,
		Sample_stack_user: a.SampleStackUser,
	}
	bits := []struct {
		on  bool
		bit uint64
	}{
		{a.Disabled, unix.PerfBitDisabled}, {a.Inherit, unix.PerfBitInherit},
		{a.Pinned, unix.PerfBitPinned}, {a.Exclusive, unix.PerfBitExclusive},
		{a.ExcludeUser, unix.PerfBitExcludeUser}, {a.ExcludeKernel, unix.PerfBitExcludeKernel},
		{a.ExcludeHV, unix.PerfBitExcludeHv}, {a.ExcludeIdle, unix.PerfBitExcludeIdle},
		{a.Mmap, unix.PerfBitMmap}, {a.Comm, unix.PerfBitComm}, {a.Freq, unix.PerfBitFreq},
		{a.InheritStat, unix.PerfBitInheritStat}, {a.EnableOnExec, unix.PerfBitEnableOnExec},
		{a.Task, unix.PerfBitTask}, {a.Watermark, unix.PerfBitWatermark},
		{a.MmapData, unix.PerfBitMmapData}, {a.SampleIDAll, unix.PerfBitSampleIDAll},
		{a.ExcludeHost, unix.PerfBitExcludeHost}, {a.ExcludeGuest, unix.PerfBitExcludeGuest},
		{a.ExcludeCallchainUser, unix.PerfBitExcludeCallchainUser},
		{a.Mmap2, unix.PerfBitMmap2}, {a.CommExec, unix.PerfBitCommExec},
		{a.UseClockID, unix.PerfBitUseClockID}, {a.ContextSwitch, unix.PerfBitContextSwitch},
	}
	for _, b := range bits {
		if b.on {
			k.Bits |= b.bit
		}
	}
	// precise_ip is the two-bit field at bits 15-16.
	if a.PreciseIP&1 != 0 {
		k.Bits |= unix.PerfBitPreciseIPBit1
	}
	if a.PreciseIP&2 != 0 {
		k.Bits |= unix.PerfBitPreciseIPBit2
	}
	return k, nil
}

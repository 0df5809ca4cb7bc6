package perfevent

import (
	"fmt"
	"strings"
)

// Event types: perf_event_attr.type for the kernel's fixed PMUs (include/uapi/linux/perf_event.h,
// enum perf_type_id). Dynamic PMUs have the type in /sys/bus/event_source/devices/<pmu>/type.
const (
	TypeHardware   uint32 = 0
	TypeSoftware   uint32 = 1
	TypeTracepoint uint32 = 2
	TypeHWCache    uint32 = 3
	TypeRaw        uint32 = 4
	TypeBreakpoint uint32 = 5
)

// Generic hardware events (enum perf_hw_id).
const (
	HWCPUCycles             uint64 = 0
	HWInstructions          uint64 = 1
	HWCacheReferences       uint64 = 2
	HWCacheMisses           uint64 = 3
	HWBranchInstructions    uint64 = 4
	HWBranchMisses          uint64 = 5
	HWBusCycles             uint64 = 6
	HWStalledCyclesFrontend uint64 = 7
	HWStalledCyclesBackend  uint64 = 8
	HWRefCPUCycles          uint64 = 9
)

// Software events (enum perf_sw_ids).
const (
	SWCPUClock        uint64 = 0
	SWTaskClock       uint64 = 1
	SWPageFaults      uint64 = 2
	SWContextSwitches uint64 = 3
	SWCPUMigrations   uint64 = 4
	SWPageFaultsMin   uint64 = 5
	SWPageFaultsMaj   uint64 = 6
	SWAlignmentFaults uint64 = 7
	SWEmulationFaults uint64 = 8
	SWDummy           uint64 = 9
	SWBPFOutput       uint64 = 10
	SWCgroupSwitches  uint64 = 11
)

// Hardware cache event config = id | op<<8 | result<<16 (enum perf_hw_cache_id, _op_id, _op_result_id).
const (
	CacheL1D  uint64 = 0
	CacheL1I  uint64 = 1
	CacheLL   uint64 = 2
	CacheDTLB uint64 = 3
	CacheITLB uint64 = 4
	CacheBPU  uint64 = 5
	CacheNode uint64 = 6

	CacheOpRead     uint64 = 0
	CacheOpWrite    uint64 = 1
	CacheOpPrefetch uint64 = 2

	CacheResultAccess uint64 = 0
	CacheResultMiss   uint64 = 1
)

// Read format bits (enum perf_event_read_format).
const (
	FormatTotalTimeEnabled uint64 = 1 << 0
	FormatTotalTimeRunning uint64 = 1 << 1
	FormatID               uint64 = 1 << 2
	FormatGroup            uint64 = 1 << 3
	FormatLost             uint64 = 1 << 4
)

// Sample type bits (enum perf_event_sample_format), the ones pmc uses.
const (
	SampleIP         uint64 = 1 << 0
	SampleTID        uint64 = 1 << 1
	SampleTime       uint64 = 1 << 2
	SampleAddr       uint64 = 1 << 3
	SampleRead       uint64 = 1 << 4
	SampleCallchain  uint64 = 1 << 5
	SampleID         uint64 = 1 << 6
	SampleCPU        uint64 = 1 << 7
	SamplePeriod     uint64 = 1 << 8
	SampleStreamID   uint64 = 1 << 9
	SampleRaw        uint64 = 1 << 10
	SampleIdentifier uint64 = 1 << 16
)

// Attr is pmc's own view of struct perf_event_attr: the kernel's bitfield word as named bools,
// so that event encoding is a pure function testable with no PMU. Encode converts it to the
// kernel layout; String renders it in a stable text form comparable with `perf stat -vv`.
type Attr struct {
	Type    uint32
	Config  uint64
	Config1 uint64 // also bp_addr / kprobe_func
	Config2 uint64 // also bp_len
	Config3 uint64

	SamplePeriod uint64 // or SampleFreq when Freq is set
	SampleType   uint64
	ReadFormat   uint64

	Disabled      bool
	Inherit       bool
	Pinned        bool
	Exclusive     bool
	ExcludeUser   bool
	ExcludeKernel bool
	ExcludeHV     bool
	ExcludeIdle   bool
	Mmap          bool
	Comm          bool
	Freq          bool
	InheritStat   bool
	EnableOnExec  bool
	Task          bool
	Watermark     bool
	PreciseIP     uint8 // 0..3, the :p count
	MmapData      bool
	SampleIDAll   bool
	ExcludeHost   bool
	ExcludeGuest  bool
	Mmap2         bool
	CommExec      bool
	UseClockID    bool
	ContextSwitch bool

	WakeupEvents uint32
	BPType       uint32
}

// flag names in the order of the kernel bitfield, as perf -vv prints them.
func (a *Attr) flags() []struct {
	name string
	on   bool
} {
	return []struct {
		name string
		on   bool
	}{
		{"disabled", a.Disabled}, {"inherit", a.Inherit}, {"pinned", a.Pinned},
		{"exclusive", a.Exclusive}, {"exclude_user", a.ExcludeUser},
		{"exclude_kernel", a.ExcludeKernel}, {"exclude_hv", a.ExcludeHV},
		{"exclude_idle", a.ExcludeIdle}, {"mmap", a.Mmap}, {"comm", a.Comm}, {"freq", a.Freq},
		{"inherit_stat", a.InheritStat}, {"enable_on_exec", a.EnableOnExec}, {"task", a.Task},
		{"watermark", a.Watermark}, {"mmap_data", a.MmapData}, {"sample_id_all", a.SampleIDAll},
		{"exclude_host", a.ExcludeHost}, {"exclude_guest", a.ExcludeGuest}, {"mmap2", a.Mmap2},
		{"comm_exec", a.CommExec}, {"use_clockid", a.UseClockID},
		{"context_switch", a.ContextSwitch},
	}
}

var readFormatNames = []struct {
	bit  uint64
	name string
}{
	{FormatTotalTimeEnabled, "TOTAL_TIME_ENABLED"}, {FormatTotalTimeRunning, "TOTAL_TIME_RUNNING"},
	{FormatID, "ID"}, {FormatGroup, "GROUP"}, {FormatLost, "LOST"},
}

var sampleTypeNames = []struct {
	bit  uint64
	name string
}{
	{SampleIP, "IP"}, {SampleTID, "TID"}, {SampleTime, "TIME"}, {SampleAddr, "ADDR"},
	{SampleRead, "READ"}, {SampleCallchain, "CALLCHAIN"}, {SampleID, "ID"}, {SampleCPU, "CPU"},
	{SamplePeriod, "PERIOD"}, {SampleStreamID, "STREAM_ID"}, {SampleRaw, "RAW"},
	{SampleIdentifier, "IDENTIFIER"},
}

func bitNames(v uint64, names []struct {
	bit  uint64
	name string
}) string {
	var parts []string
	for _, n := range names {
		if v&n.bit != 0 {
			parts = append(parts, n.name)
			v &^= n.bit
		}
	}
	if v != 0 {
		parts = append(parts, fmt.Sprintf("%#x", v))
	}
	return strings.Join(parts, "|")
}

// String renders the attr in the layout of `perf stat -vv`: one "name value" line per field
// that is not zero, in the kernel's field order. Type is printed even when 0 (perf omits it for
// PERF_TYPE_HARDWARE; pmc prints it so that every line of a golden file is explicit).
func (a Attr) String() string {
	var b strings.Builder
	line := func(name string, v any) { fmt.Fprintf(&b, "  %-32s %v\n", name, v) }
	line("type", a.Type)
	if a.Config != 0 {
		line("config", fmt.Sprintf("%#x", a.Config))
	}
	if a.SamplePeriod != 0 {
		if a.Freq {
			line("sample_freq", a.SamplePeriod)
		} else {
			line("sample_period", a.SamplePeriod)
		}
	}
	if a.SampleType != 0 {
		line("sample_type", bitNames(a.SampleType, sampleTypeNames))
	}
	if a.ReadFormat != 0 {
		line("read_format", bitNames(a.ReadFormat, readFormatNames))
	}
	for _, f := range a.flags() {
		if f.on {
			line(f.name, 1)
		}
	}
	if a.PreciseIP != 0 {
		line("precise_ip", a.PreciseIP)
	}
	if a.WakeupEvents != 0 {
		line("wakeup_events", a.WakeupEvents)
	}
	if a.BPType != 0 {
		line("bp_type", a.BPType)
	}
	if a.Config1 != 0 {
		line("config1", fmt.Sprintf("%#x", a.Config1))
	}
	if a.Config2 != 0 {
		line("config2", fmt.Sprintf("%#x", a.Config2))
	}
	if a.Config3 != 0 {
		line("config3", fmt.Sprintf("%#x", a.Config3))
	}
	return b.String()
}

package perfevent

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/unix"
)

// The constants below are the kernel's (include/uapi/linux/perf_event.h), taken from
// golang.org/x/sys/unix through internal/unix, under the names pmc uses.

// Event types: perf_event_attr.type for the kernel's fixed PMUs (enum perf_type_id). Dynamic
// PMUs have the type in /sys/bus/event_source/devices/<pmu>/type.
const (
	TypeHardware   uint32 = unix.PERF_TYPE_HARDWARE
	TypeSoftware   uint32 = unix.PERF_TYPE_SOFTWARE
	TypeTracepoint uint32 = unix.PERF_TYPE_TRACEPOINT
	TypeHWCache    uint32 = unix.PERF_TYPE_HW_CACHE
	TypeRaw        uint32 = unix.PERF_TYPE_RAW
	TypeBreakpoint uint32 = unix.PERF_TYPE_BREAKPOINT
)

// Generic hardware events (enum perf_hw_id).
const (
	HWCPUCycles             uint64 = unix.PERF_COUNT_HW_CPU_CYCLES
	HWInstructions          uint64 = unix.PERF_COUNT_HW_INSTRUCTIONS
	HWCacheReferences       uint64 = unix.PERF_COUNT_HW_CACHE_REFERENCES
	HWCacheMisses           uint64 = unix.PERF_COUNT_HW_CACHE_MISSES
	HWBranchInstructions    uint64 = unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS
	HWBranchMisses          uint64 = unix.PERF_COUNT_HW_BRANCH_MISSES
	HWBusCycles             uint64 = unix.PERF_COUNT_HW_BUS_CYCLES
	HWStalledCyclesFrontend uint64 = unix.PERF_COUNT_HW_STALLED_CYCLES_FRONTEND
	HWStalledCyclesBackend  uint64 = unix.PERF_COUNT_HW_STALLED_CYCLES_BACKEND
	HWRefCPUCycles          uint64 = unix.PERF_COUNT_HW_REF_CPU_CYCLES
)

// Software events (enum perf_sw_ids).
const (
	SWCPUClock        uint64 = unix.PERF_COUNT_SW_CPU_CLOCK
	SWTaskClock       uint64 = unix.PERF_COUNT_SW_TASK_CLOCK
	SWPageFaults      uint64 = unix.PERF_COUNT_SW_PAGE_FAULTS
	SWContextSwitches uint64 = unix.PERF_COUNT_SW_CONTEXT_SWITCHES
	SWCPUMigrations   uint64 = unix.PERF_COUNT_SW_CPU_MIGRATIONS
	SWPageFaultsMin   uint64 = unix.PERF_COUNT_SW_PAGE_FAULTS_MIN
	SWPageFaultsMaj   uint64 = unix.PERF_COUNT_SW_PAGE_FAULTS_MAJ
	SWAlignmentFaults uint64 = unix.PERF_COUNT_SW_ALIGNMENT_FAULTS
	SWEmulationFaults uint64 = unix.PERF_COUNT_SW_EMULATION_FAULTS
	SWDummy           uint64 = unix.PERF_COUNT_SW_DUMMY
	SWBPFOutput       uint64 = unix.PERF_COUNT_SW_BPF_OUTPUT
	SWCgroupSwitches  uint64 = 11 // PERF_COUNT_SW_CGROUP_SWITCHES (Linux 5.13); not in x/sys yet
)

// Hardware cache event config = id | op<<8 | result<<16 (enum perf_hw_cache_id, _op_id, _op_result_id).
const (
	CacheL1D  uint64 = unix.PERF_COUNT_HW_CACHE_L1D
	CacheL1I  uint64 = unix.PERF_COUNT_HW_CACHE_L1I
	CacheLL   uint64 = unix.PERF_COUNT_HW_CACHE_LL
	CacheDTLB uint64 = unix.PERF_COUNT_HW_CACHE_DTLB
	CacheITLB uint64 = unix.PERF_COUNT_HW_CACHE_ITLB
	CacheBPU  uint64 = unix.PERF_COUNT_HW_CACHE_BPU
	CacheNode uint64 = unix.PERF_COUNT_HW_CACHE_NODE

	CacheOpRead     uint64 = unix.PERF_COUNT_HW_CACHE_OP_READ
	CacheOpWrite    uint64 = unix.PERF_COUNT_HW_CACHE_OP_WRITE
	CacheOpPrefetch uint64 = unix.PERF_COUNT_HW_CACHE_OP_PREFETCH

	CacheResultAccess uint64 = unix.PERF_COUNT_HW_CACHE_RESULT_ACCESS
	CacheResultMiss   uint64 = unix.PERF_COUNT_HW_CACHE_RESULT_MISS
)

// Read format bits (enum perf_event_read_format).
const (
	FormatTotalTimeEnabled uint64 = unix.PERF_FORMAT_TOTAL_TIME_ENABLED
	FormatTotalTimeRunning uint64 = unix.PERF_FORMAT_TOTAL_TIME_RUNNING
	FormatID               uint64 = unix.PERF_FORMAT_ID
	FormatGroup            uint64 = unix.PERF_FORMAT_GROUP
	FormatLost             uint64 = unix.PERF_FORMAT_LOST
)

// Sample type bits (enum perf_event_sample_format), the ones pmc uses.
const (
	SampleIP         uint64 = unix.PERF_SAMPLE_IP
	SampleTID        uint64 = unix.PERF_SAMPLE_TID
	SampleTime       uint64 = unix.PERF_SAMPLE_TIME
	SampleAddr       uint64 = unix.PERF_SAMPLE_ADDR
	SampleRead       uint64 = unix.PERF_SAMPLE_READ
	SampleCallchain  uint64 = unix.PERF_SAMPLE_CALLCHAIN
	SampleID         uint64 = unix.PERF_SAMPLE_ID
	SampleCPU        uint64 = unix.PERF_SAMPLE_CPU
	SamplePeriod     uint64 = unix.PERF_SAMPLE_PERIOD
	SampleStreamID   uint64 = unix.PERF_SAMPLE_STREAM_ID
	SampleRaw        uint64 = unix.PERF_SAMPLE_RAW
	SampleIdentifier uint64 = unix.PERF_SAMPLE_IDENTIFIER
	SampleRegsUser   uint64 = unix.PERF_SAMPLE_REGS_USER
	SampleStackUser  uint64 = unix.PERF_SAMPLE_STACK_USER
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
	// ExcludeCallchainUser leaves user space out of the kernel's call chains (--call-graph
	// dwarf unwinds it from the stack copy instead).
	ExcludeCallchainUser bool
	Mmap2                bool
	CommExec             bool
	UseClockID           bool
	ContextSwitch        bool

	WakeupEvents uint32
	BPType       uint32
	// SampleRegsUser and SampleStackUser: the user registers (a mask of the architecture's
	// perf_regs) and the bytes of user stack each sample copies.
	SampleRegsUser  uint64
	SampleStackUser uint32
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
		{"exclude_host", a.ExcludeHost}, {"exclude_guest", a.ExcludeGuest},
		{"exclude_callchain_user", a.ExcludeCallchainUser}, {"mmap2", a.Mmap2},
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
	{SampleIdentifier, "IDENTIFIER"}, {SampleRegsUser, "REGS_USER"}, {SampleStackUser, "STACK_USER"},
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
	if a.SampleRegsUser != 0 {
		line("sample_regs_user", fmt.Sprintf("%#x", a.SampleRegsUser))
	}
	if a.SampleStackUser != 0 {
		line("sample_stack_user", a.SampleStackUser)
	}
	if a.Config3 != 0 {
		line("config3", fmt.Sprintf("%#x", a.Config3))
	}
	return b.String()
}

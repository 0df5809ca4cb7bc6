package perfdata

import "fmt"

// Record types (PERF_RECORD_*), the kernel's and perf's own (>= 64).
const (
	RecordMmap          uint32 = 1
	RecordLost          uint32 = 2
	RecordComm          uint32 = 3
	RecordExit          uint32 = 4
	RecordThrottle      uint32 = 5
	RecordUnthrottle    uint32 = 6
	RecordFork          uint32 = 7
	RecordRead          uint32 = 8
	RecordSample        uint32 = 9
	RecordMmap2         uint32 = 10
	RecordLostSamples   uint32 = 13
	RecordFinishedRound uint32 = 68
	RecordFinishedInit  uint32 = 82
	RecordCompressed    uint32 = 81
)

// Misc bits of a record header.
const (
	MiscCPUModeMask uint16 = 7
	MiscKernel      uint16 = 1
	MiscUser        uint16 = 2
	MiscHypervisor  uint16 = 3
	MiscGuestKernel uint16 = 4
	MiscGuestUser   uint16 = 5
	MiscCommExec    uint16 = 1 << 13 // COMM: the comm changed at exec
	MiscMmapBuildID uint16 = 1 << 14 // MMAP2: a build id instead of device and inode
	MiscExactIP     uint16 = 1 << 14 // SAMPLE: the IP is exact (precise)
)

// Callchain context markers (PERF_CONTEXT_*): entries >= ContextMax mark where the
// following addresses were taken, they are not addresses.
const (
	ContextHV          uint64 = 0xffffffffffffffe0 // -32
	ContextKernel      uint64 = 0xffffffffffffff80 // -128
	ContextUser        uint64 = 0xfffffffffffffe00 // -512
	ContextGuest       uint64 = 0xfffffffffffff800 // -2048
	ContextGuestKernel uint64 = 0xfffffffffffff780 // -2176
	ContextGuestUser   uint64 = 0xfffffffffffff600 // -2560
	ContextMax         uint64 = 0xfffffffffffff001 // -4095
)

// Record is one record of the data section: *Sample, *Mmap, *Comm, *Task, *Lost,
// *LostSamples, *FinishedRound or *Unknown.
type Record interface {
	Header() RecordHeader
}

// RecordHeader is a record's perf_event_header and where it lies in the file.
type RecordHeader struct {
	Type   uint32
	Misc   uint16
	Size   uint16
	Offset int64 // in the file
}

func (h RecordHeader) Header() RecordHeader { return h }

// CPUMode is the misc field's cpumode (MiscKernel, MiscUser...).
func (h RecordHeader) CPUMode() uint16 { return h.Misc & MiscCPUModeMask }

// Origin is the sample_id trailer of a non-sample record (sample_id_all), or the same
// fields of a sample. Event is the index into File.Events of the record's event (0 when the
// file cannot tell, which is when it has one event).
type Origin struct {
	PID, TID uint32
	Time     uint64
	ID       uint64
	StreamID uint64
	CPU      uint32
	Event    int
}

// ReadValue is one counter in a sample's PERF_SAMPLE_READ data.
type ReadValue struct {
	Value, ID, Lost uint64
}

// ReadData is a sample's PERF_SAMPLE_READ data (one value, or a group's).
type ReadData struct {
	TimeEnabled, TimeRunning uint64
	Values                   []ReadValue
}

// Sample is a PERF_RECORD_SAMPLE. Fields its event's sample_type lacks are zero.
type Sample struct {
	RecordHeader
	Origin
	IP        uint64
	Addr      uint64
	Period    uint64
	Read      *ReadData
	Callchain []uint64 // with the PERF_CONTEXT_* markers as the kernel wrote them
	Raw       []byte
	Branches  []BranchEntry // PERF_SAMPLE_BRANCH_STACK, the most recent branch first
	User      *UserStack    // PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER (--call-graph dwarf)
}

// BranchEntry is one entry of a sample's branch stack (struct perf_branch_entry).
type BranchEntry struct {
	From, To uint64
	Flags    uint64 // mispred, predicted, in_tx, abort, cycles (bits 4-19), type...
}

// Cycles is the branch's basic-block cycle count (0: not known).
func (b BranchEntry) Cycles() uint64 { return b.Flags >> 4 & 0xffff }

// Mmap is a PERF_RECORD_MMAP or PERF_RECORD_MMAP2 (Type says which).
type Mmap struct {
	RecordHeader
	Origin
	PID, TID         uint32
	Addr, Len, Pgoff uint64
	// MMAP2 only:
	Maj, Min    uint32
	Ino, InoGen uint64
	BuildID     []byte // when Misc has MiscMmapBuildID (then Maj..InoGen are zero)
	Prot, Flags uint32
	Filename    string
}

// Comm is a PERF_RECORD_COMM.
type Comm struct {
	RecordHeader
	Origin
	PID, TID uint32
	Comm     string
}

// Task is a PERF_RECORD_FORK or PERF_RECORD_EXIT (Type says which).
type Task struct {
	RecordHeader
	Origin
	PID, PPID, TID, PTID uint32
	Time                 uint64
}

// Lost is a PERF_RECORD_LOST: the kernel dropped Lost records of the event with ID.
type Lost struct {
	RecordHeader
	Origin
	LostID uint64
	Lost   uint64
}

// LostSamples is a PERF_RECORD_LOST_SAMPLES.
type LostSamples struct {
	RecordHeader
	Origin
	Lost uint64
}

// FinishedRound is perf's PERF_RECORD_FINISHED_ROUND (no payload).
type FinishedRound struct{ RecordHeader }

// Unknown is any other record, with its payload (after the header).
type Unknown struct {
	RecordHeader
	Data []byte
}

func (h RecordHeader) String() string {
	return fmt.Sprintf("record type %d size %d at %d", h.Type, h.Size, h.Offset)
}

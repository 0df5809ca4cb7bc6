package record

import (
	"os"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// Mode says what is sampled.
type Mode int

const (
	Launch Mode = iota // run Command and sample it and its children
	Attach             // sample the threads of existing PIDs until they exit or Ctrl-C
	System             // sample every task on CPUs until Ctrl-C or Command's end
)

// Event is one event to sample, as resolved for counting: the Session makes its attribute
// a sampling one.
type Event struct {
	Name string
	Attr perfevent.Attr
}

// DefaultRingPages is each CPU's ring in pages (512 KiB with 4 KiB pages, perf's default,
// within the kernel's unprivileged limit of perf_event_mlock_kb per CPU).
const DefaultRingPages = 128

// Request is a validated pmc record invocation.
type Request struct {
	Mode   Mode
	Events []Event
	// Fallback is sampled instead of Events when their first event is not supported here
	// (the default cycles on a machine without a PMU: cpu-clock). Empty: no fallback.
	Fallback []Event
	// Command is run (Launch, or System while it runs) from Path, resolved beforehand.
	Command               []string
	Path                  string
	Env                   []string
	Stdin, Stdout, Stderr *os.File
	PIDs                  []int // Attach
	CPUs                  []int // System; empty: every online CPU
	Period                uint64
	Freq                  uint64 // samples per second; used when Period is 0
	Callchain             bool
	// UserStack, when not 0, records call chains as --call-graph dwarf does: the user
	// registers and this many bytes of user stack per sample (a multiple of 8), the
	// kernel's chain without its user part.
	UserStack uint32
	Cmdline   []string // the CMDLINE feature: how pmc was run
	RingPages int      // a power of two; 0: DefaultRingPages
	// Compression is perf's -z level: the records are written zstd-compressed (perf's
	// PERF_RECORD_COMPRESSED); 0 writes them as they are.
	Compression int
	// Pipe writes perf's pipe format (perf record -o -) to a stream that need not seek.
	Pipe bool
}

// Result is what a recording wrote and what it could not.
type Result struct {
	// ExitStatus is the workload's, in the shell's convention (128+N for signal N).
	ExitStatus int
	Events     []string // the events sampled (after any fallback)
	Samples    uint64   // samples in the file
	Bytes      uint64   // of records in the file
	// Packed, with Compression: the bytes of records compressed and of the COMPRESSED
	// records that hold them (perf's "original" size and ratio).
	Packed struct{ In, Out uint64 }
	// Lost records and samples the kernel dropped because a ring was full
	// (PERF_RECORD_LOST, PERF_RECORD_LOST_SAMPLES); they are in the file as such.
	Lost, LostSamples uint64
	// Throttled counts the kernel's PERF_RECORD_THROTTLE: sampling paused because its
	// interrupts took too long.
	Throttled uint64
	// WriteErr is why the file stopped growing (a full disk); what was written before is
	// whole and readable. Unwritten samples were read from the rings after it.
	WriteErr  error
	Unwritten uint64
	// Corrupt counts rings whose records made no sense (the rest of each was skipped).
	Corrupt int
}

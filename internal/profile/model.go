package profile

import (
	"github.com/pmc-tools/pmc/internal/symbol"
)

// Profile is a finished profile. Its pointers are shared: two samples in one symbol point
// at the same Symbol, two frames at one address at the same Location.
type Profile struct {
	Events  []*Event
	Threads []*Thread
	DSOs    []*DSO
	// Sampled are the DSOs that some sample's stack has an address in, in the order of
	// their first such address; their Table and Err are set (the others' are not read).
	Sampled  []*DSO
	Samples  []Sample
	Lost     uint64   // samples the kernel dropped (LOST records)
	Warnings []string // said once each: "no kernel symbols: ..." and the like
	Notes    []string // what reading the samples found: call chains that end early
	// Comms is each thread's last name, by tid: perf sizes its Command column with them.
	Comms map[int]string
	// Exec is each process's executable, by pid: the first file it mapped (since its last
	// exec).
	Exec map[int]*DSO
}

// Event is one sampled event (one perf_event_attr).
type Event struct {
	Index int    // position in Profile.Events
	ID    uint64 // the id the input uses (perf's sample id), 0 when only one event
	Name  string
	// Samples and Period are the totals over the event's samples.
	Samples, Period uint64
	// Leader is the index of the event's group leader (its own when it leads or has no
	// group); a leader's Members counts its group, itself included (0 or 1: no group).
	Leader, Members int
	Group           string // a leader's group name, "" for an anonymous group
}

// Thread is one thread with the command name it had when sampled.
type Thread struct {
	Pid, Tid int
	Comm     string
}

// DSO is a mapped object: an executable, a library, the kernel, a JIT map, or the unknown.
type DSO struct {
	Name    string // path as mapped, "[kernel.kallsyms]", "[e1000]", "[unknown]"
	BuildID string
	Kernel  bool
	Table   *symbol.Table // nil when it could not be read
	Err     error         // why Table is nil

	loaded  bool // Table and Err are set
	sampled bool // in Profile.Sampled
}

// Unknown is the DSO of addresses outside every mapping.
const Unknown = "[unknown]"

// Symbol is a function of a DSO, or an unresolved address of it (Unknown set; Name is the
// address as perf prints it).
type Symbol struct {
	Name    string // demangled
	Raw     string // as stored in the DSO
	DSO     *DSO
	Start   uint64 // in the DSO's address space
	Size    uint64
	File    string // source file of the symbol's first line, "" when unknown
	Line    int
	Unknown bool
	// Inlined marks a function inlined where the frame is (perf's "(inlined)" frames):
	// Start and Size are those of the function it is inlined into.
	Inlined bool
}

// Location is one resolved address.
type Location struct {
	DSO  *DSO
	Sym  *Symbol
	Addr uint64 // the process (or kernel) address
	Rel  uint64 // the address in the DSO's space
	// Off is the address in its mapping's file (Addr - start + file offset: perf's map_ip),
	// Addr when no mapping covers it: what perf script prints for a user-space frame.
	Off  uint64
	File string // source position, "" when unknown
	Line int
	// Real is, for an inlined frame, the location of the same address as its symbol
	// resolves it; nil otherwise.
	Real *Location

	id uint32 // the Aggregator's number for it, 0 until it has one
}

// Sample is one sample. Stack[0] is where the sample hit; the rest are its callers, leaf
// first (only with call chains).
type Sample struct {
	Thread *Thread
	Event  int // index in Profile.Events
	Period uint64
	CPU    int
	Time   uint64
	Stack  []*Location
	// Self is where the sample hit when Stack[0] is not it: a function inlined there (the
	// chain shows those first, the entry is the symbol's). nil: Stack[0].
	Self *Location
	// Branches is the sample's branch stack (perf record -b), the most recent first.
	Branches []Branch
}

// Hit is where the sample hit: the location its entry is named by.
func (s *Sample) Hit() *Location {
	if s.Self != nil {
		return s.Self
	}
	return s.Stack[0]
}

// Kernel reports whether the location is in the kernel.
func (l *Location) Kernel() bool { return l.DSO != nil && l.DSO.Kernel }

// SampledTables returns the symbol tables of the DSOs that got samples (on any frame), one
// per table: what the embedded-symbol archive (symbol.WriteArchive) needs to report the
// profile on another machine.
func (p *Profile) SampledTables() []*symbol.Table {
	seen := map[*symbol.Table]bool{}
	var out []*symbol.Table
	for _, d := range p.Sampled {
		if t := d.Table; t != nil && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

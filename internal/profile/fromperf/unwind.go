package fromperf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/unwind"
)

// unwinder gives the samples of --call-graph dwarf (user registers and stack) their user
// callers, as perf report does after the kernel's part of the chain, with the unwind tables
// of each object read once (package unwind), and counts the chains that end early.
type unwinder struct {
	f       *perfdata.File
	b       *profile.Builder
	res     *symbol.Resolver
	machine unwind.Arch
	known   bool // machine is set
	tables  map[*symbol.Table]*unwind.Tables
	why     map[*symbol.Table]string // why a table's object has no unwind tables
	chain   []uint64
	pid     int
	find    unwind.Finder
	// Chains unwound, those that ended early by reason, samples whose copy is short.
	total, early, short int
	stops               map[string]int
}

// dwarfEvents says whether some event of f records user registers and stacks.
func dwarfEvents(f *perfdata.File) bool {
	for _, ev := range f.Events {
		if t := ev.Attr.SampleType; t&perfdata.SampleRegsUser != 0 && t&perfdata.SampleStackUser != 0 {
			return true
		}
	}
	return false
}

func newUnwinder(f *perfdata.File, b *profile.Builder) *unwinder {
	u := &unwinder{f: f, b: b, res: b.Resolver(), tables: map[*symbol.Table]*unwind.Tables{},
		why: map[*symbol.Table]string{}, stops: map[string]int{}}
	u.find = func(addr uint64) (unwind.Code, bool) {
		c, ok := u.b.CodeAt(u.pid, addr)
		if !ok {
			return unwind.Code{}, false
		}
		return unwind.Code{Tables: u.tablesOf(c.Table), Rel: c.Rel, Object: u.object(c)}, true
	}
	return u
}

// object names an object in notes: with why it has no tables when it has none.
func (u *unwinder) object(c profile.Code) string {
	if w := u.why[c.Table]; w != "" && c.Table != nil {
		return c.Object + " (" + w + ")"
	}
	if c.Table == nil {
		return c.Object + " (no symbols)"
	}
	return c.Object
}

func (u *unwinder) tablesOf(t *symbol.Table) *unwind.Tables {
	if t == nil {
		return nil
	}
	if x, ok := u.tables[t]; ok {
		return x
	}
	s, err := u.res.Frames(t)
	x := unwind.NewTables(s)
	if err != nil {
		u.why[t] = err.Error()
	}
	u.tables[t] = x
	return x
}

// chainOf returns s's call chain with its user part unwound: the kernel's chain as
// recorded, then PERF_CONTEXT_USER and the user frames. It returns s.Callchain as it is
// when s has no user registers or stack (a kernel thread, a task whose stack could not be
// read), as perf does.
func (u *unwinder) chainOf(s *perfdata.Sample) []uint64 {
	us := s.User
	if us == nil || us.ABI == perfdata.RegsABINone || len(us.Stack) == 0 {
		return s.Callchain
	}
	if !u.known {
		u.machine, u.known = unwind.RecordingArch(u.f.Features.Arch, us.Mask), true
	}
	u.total++
	if us.Short() {
		u.short++
	}
	chain := append(append(u.chain[:0], s.Callchain...), perfdata.ContextUser)
	arch, err := unwind.TaskArch(u.machine, us.ABI)
	if err != nil {
		u.stop(unwind.Stop{Reason: unwind.BadRegs, Err: err})
		u.chain = chain
		return chain
	}
	regs, err := unwind.PerfRegs(arch, us.Mask, us.Regs)
	if err != nil {
		u.stop(unwind.Stop{Reason: unwind.BadRegs, Err: err})
		u.chain = chain
		return chain
	}
	u.pid = int(int32(s.PID))
	chain, stop := unwind.Unwind(arch, regs, us.Stack, u.find, chain)
	if !stop.Normal() {
		u.stop(stop)
	}
	u.chain = chain
	return chain
}

func (u *unwinder) stop(s unwind.Stop) {
	u.early++
	u.stops[s.String()]++
}

// notes say, once, how many chains ended before their outermost frame and why.
func (u *unwinder) notes() []string {
	var out []string
	if u.short > 0 {
		out = append(out, fmt.Sprintf("%d of %d samples hold less user stack than their records claim: unwound as far as the copy goes", u.short, u.total))
	}
	if u.early == 0 {
		return out
	}
	whys := make([]string, 0, len(u.stops))
	for w := range u.stops {
		whys = append(whys, w)
	}
	slices.SortFunc(whys, func(a, b string) int {
		if u.stops[a] != u.stops[b] {
			return u.stops[b] - u.stops[a]
		}
		return strings.Compare(a, b)
	})
	const shown = 4
	var parts []string
	for i, w := range whys {
		if i == shown {
			parts = append(parts, fmt.Sprintf("%d more reasons", len(whys)-shown))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", w, u.stops[w]))
	}
	return append(out, fmt.Sprintf("%d of %d call chains (--call-graph dwarf) end before their outermost frame, at: %s",
		u.early, u.total, strings.Join(parts, "; ")))
}

// maxHeld bounds the user stacks queued samples hold: a file without FINISHED_ROUND
// records (one ring: pmc's on a single CPU) would otherwise be read whole before any
// sample is delivered. Past it the older half of the queue is delivered, as perf's
// ordered events do when their queue is full.
var maxHeld = 256 << 20

// bound counts r's stack copy and delivers the queue's older half when they weigh too much.
func (c *converter) bound(r perfdata.Record) {
	s, ok := r.(*perfdata.Sample)
	if !ok || s.User == nil || c.unw == nil {
		return // not queued whole (add)
	}
	c.held += len(s.User.Stack)
	if c.held <= maxHeld {
		return
	}
	all := c.q.sort()
	c.flush(all[len(all)/2].t)
}

// release uncounts the stack copy of a record being delivered.
func (c *converter) release(r perfdata.Record) {
	if s, ok := r.(*perfdata.Sample); ok && s.User != nil && c.unw != nil {
		c.held -= len(s.User.Stack)
	}
}

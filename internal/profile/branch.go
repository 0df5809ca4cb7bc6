package profile

import (
	"cmp"
	"strconv"
)

// Branch stacks: perf report's branch view (--branch-stack), its default when samples
// have them: an entry per (command, source DSO, source symbol, target symbol, basic block
// cycles), each branch counted once.

// BranchSort are perf's sort keys of the branch view.
var BranchSort = []string{"comm", "dso_from", "symbol_from", "symbol_to", "cycles"}

// Branch is one resolved entry of a sample's branch stack.
type Branch struct {
	From, To           *Location
	FromLevel, ToLevel byte // perf's level: '.' user, 'k' kernel, 'H' neither
	Cycles             uint64
}

// branches resolves a sample's branch stack as perf does (thread__find_cpumode_addr_location):
// an address is looked up in the process's mappings, then in the kernel's; one in neither
// is [unknown] at level H.
func (b *Builder) branches(e SampleEvent, user, kern *space) []Branch {
	out := make([]Branch, len(e.Branches))
	for i, r := range e.Branches {
		br := &out[i]
		br.From, br.FromLevel = b.locateAny(user, kern, r.From)
		br.To, br.ToLevel = b.locateAny(user, kern, r.To)
		br.Cycles = r.Cycles
	}
	return out
}

func (b *Builder) locateAny(user, kern *space, addr uint64) (*Location, byte) {
	if l := b.locate(user, kern, addr, false, false); l.DSO != b.unknown {
		return l, '.'
	}
	if l := b.locate(user, kern, addr, true, false); l.DSO != b.unknownKernel {
		return l, 'k'
	}
	return b.locate(nil, nil, addr, false, false), 'H'
}

// addBranches counts each branch of s once (period 1) in the branch view's entries.
func (a *Aggregator) addBranches(s *Sample) {
	g := a.aggregationOf(s.Event)
	for i := range s.Branches {
		br := &s.Branches[i]
		cycles := "-"
		if br.Cycles != 0 {
			cycles = strconv.Itoa(int(int16(br.Cycles))) // perf prints the 16 bits with %hd
		}
		vals := []string{s.Thread.Comm, dsoName(br.From.DSO), levelMark(br.FromLevel) + br.From.Sym.Name,
			levelMark(br.ToLevel) + br.To.Sym.Name, cycles}
		key := vals[0] + "\x00" + vals[1] + "\x00" + vals[2] + "\x00" + vals[3] + "\x00" + vals[4]
		e, ok := g.byKey[key]
		if !ok {
			c := *br
			e = &Entry{Values: vals, Thread: s.Thread, DSO: br.From.DSO, Sym: br.From.Sym, Kernel: br.FromLevel == 'k', Branch: &c}
			g.byKey[key] = e
			g.entries = append(g.entries, e)
		}
		e.Self++
		e.Samples++
		g.total++
		g.samples++
	}
}

func levelMark(l byte) string { return "[" + string(l) + "] " }

// branchLess orders entries of equal period of the branch view: by command, source DSO
// (known before [unknown], then by name, the greater first), source and target symbol (unresolved by address),
// then the most cycles first.
func branchLess(a, b *Entry) bool {
	if a.Values[0] != b.Values[0] {
		return a.Values[0] < b.Values[0]
	}
	au, bu := a.Branch.From.DSO.Name == Unknown, b.Branch.From.DSO.Name == Unknown
	if au != bu {
		return bu
	}
	if x, y := a.Values[1], b.Values[1]; x != y {
		return x > y // perf's strcmp of the short names, which puts the greater first
	}
	if c := cmpBranchSym(a.Branch.From, b.Branch.From); c != 0 {
		return c < 0
	}
	if c := cmpBranchSym(a.Branch.To, b.Branch.To); c != 0 {
		return c < 0
	}
	return a.Branch.Cycles > b.Branch.Cycles // perf's cycles compare the other way round
}

func cmpBranchSym(a, b *Location) int {
	if a.Sym.Unknown != b.Sym.Unknown {
		if b.Sym.Unknown {
			return -1
		}
		return 1
	}
	if a.Sym.Unknown {
		return cmp.Compare(a.Addr, b.Addr)
	}
	return cmp.Compare(a.Sym.Name, b.Sym.Name)
}

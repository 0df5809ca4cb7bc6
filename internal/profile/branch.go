package profile

import (
	"cmp"
	"slices"
	"sort"
	"strconv"

	"github.com/pmc-tools/pmc/internal/symbol"
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
	var out []Branch
	if b.keep {
		out = make([]Branch, len(e.Branches))
	} else {
		// Streamed samples are not kept: one array serves them all.
		out = slices.Grow(b.branchBuf[:0], len(e.Branches))[:len(e.Branches)]
		b.branchBuf = out
	}
	for i, r := range e.Branches {
		br := &out[i]
		br.From, br.FromLevel = b.locateAny(user, kern, r.From)
		br.To, br.ToLevel = b.locateAny(user, kern, r.To)
		br.Cycles = r.Cycles
	}
	return out
}

func (b *Builder) locateAny(user, kern *space, addr uint64) (*Location, byte) {
	// A branch stack repeats a loop's few addresses: a direct-mapped cache of the answers
	// (spaces never change, so an entry for the same spaces and address is right).
	c := &b.branchCache[(addr^addr>>11)%uint64(len(b.branchCache))]
	if c.addr == addr && c.user == user && c.kern == kern && c.l != nil {
		return c.l, c.level
	}
	l, level := b.locateAnyOnce(user, kern, addr)
	*c = branchCached{user: user, kern: kern, addr: addr, l: l, level: level}
	return l, level
}

// locateAnyOnce asks first whether the process, then the kernel, has addr, so that an
// address neither has makes one Location, not three.
func (b *Builder) locateAnyOnce(user, kern *space, addr uint64) (*Location, byte) {
	if user.covers(addr) {
		return b.locate(user, kern, addr, false, false), '.'
	}
	if b.kernelHas(kern, addr) {
		return b.locate(user, kern, addr, true, false), 'k'
	}
	return b.locate(nil, nil, addr, false, false), 'H'
}

// covers says whether a mapping of sp (nil: none) holds addr: resolve finds a DSO for it.
func (sp *space) covers(addr uint64) bool {
	if sp == nil {
		return false
	}
	i := sort.Search(len(sp.maps), func(i int) bool { return sp.maps[i].start > addr })
	return i > 0 && addr < sp.maps[i-1].end
}

// kernelHas says whether resolve names kernel address addr: a kernel mapping holds it, or
// the kernel's symbols do.
func (b *Builder) kernelHas(kern *space, addr uint64) bool {
	if kern.covers(addr) {
		return true
	}
	d := b.dso(symbol.KernelName, "", true)
	b.load(d)
	return d.Table != nil && d.Table.Lookup(addr) != nil
}

// branchCached is an entry of Builder.branchCache.
type branchCached struct {
	user, kern *space
	addr       uint64
	l          *Location
	level      byte
}

// branchCacheEntry is an entry of Aggregator.branchCache.
type branchCacheEntry struct {
	key branchKey
	g   *aggregation
	e   *Entry
}

// branchKey is what makes a branch's entry, but for a thread standing for its command:
// branches with the same key are in one entry, looked up before the entry's text key is
// made.
type branchKey struct {
	t                  *Thread
	from, to           *Location
	fromLevel, toLevel byte
	cycles             uint64
}

// addBranches counts each branch of s once (period 1) in the branch view's entries.
func (a *Aggregator) addBranches(s *Sample) {
	g := a.aggregationOf(s.Event)
	if g.byBranch == nil {
		g.byBranch = map[branchKey]*Entry{}
	}
	if a.branchCache == nil {
		a.branchCache = make([]branchCacheEntry, 2048)
	}
	for i := range s.Branches {
		br := &s.Branches[i]
		bk := branchKey{s.Thread, br.From, br.To, br.FromLevel, br.ToLevel, br.Cycles}
		// A direct-mapped cache before the map: a loop's branches come again and again.
		h := uint64(locID(br.From))*0x9e3779b1 ^ uint64(locID(br.To)) ^ br.Cycles<<7
		c := &a.branchCache[h%uint64(len(a.branchCache))]
		e := c.e
		if e == nil || c.key != bk || c.g != g {
			if e = g.byBranch[bk]; e == nil {
				e = g.branchEntry(s, br)
				g.byBranch[bk] = e
			}
			*c = branchCacheEntry{key: bk, g: g, e: e}
		}
		e.Self++
		e.Samples++
		g.total++
		g.samples++
	}
}

// branchEntry is the entry of branch br of sample s, made on first use.
func (g *aggregation) branchEntry(s *Sample, br *Branch) *Entry {
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
	return e
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

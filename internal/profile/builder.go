package profile

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pmc-tools/pmc/internal/symbol"
)

// CommEvent names a thread (PERF_RECORD_COMM); Exec is set when the name came with an exec.
type CommEvent struct {
	Pid, Tid int
	Comm     string
	Exec     bool
}

// MmapEvent is an executable mapping (PERF_RECORD_MMAP/MMAP2 without the data flag):
// [Start, Start+Len) of process Pid maps Filename from file offset Pgoff. Kernel mappings
// (the kernel image, modules) have Pid -1 or Kernel set.
type MmapEvent struct {
	Pid, Tid   int
	Start, Len uint64
	Pgoff      uint64
	Filename   string
	BuildID    string // hex, "" when the record has none (the build-id feature may give it)
	Kernel     bool
}

// ForkEvent starts thread Tid of process Pid from thread PTid of process PPid. A new process
// (Pid != PPid) starts with a copy of its parent's mappings.
type ForkEvent struct {
	Pid, PPid, Tid, PTid int
}

// SampleEvent is one sample. Kernel says the IP is a kernel address (cpumode kernel).
// Callchain, when present, holds perf's raw chain: context markers (PERF_CONTEXT_KERNEL,
// PERF_CONTEXT_USER...) and addresses, the sampled IP first.
type SampleEvent struct {
	Pid, Tid  int
	IP        uint64
	Kernel    bool
	Callchain []uint64
	Period    uint64
	CPU       int
	Time      uint64
	EventID   uint64 // matched against Event.ID; unknown ids go to the first event
	Branches  []RawBranch
	// IPApart: the sample's entry is IP's, which the chain need not start with (an LBR
	// call stack starts at the called function's first instruction).
	IPApart bool
}

// RawBranch is one entry of a sample's branch stack: the addresses and the basic block's
// cycle count (0: not known).
type RawBranch struct {
	From, To, Cycles uint64
}

// Callchain context markers (perf_event.h: PERF_CONTEXT_*).
const (
	contextHV          = ^uint64(32 - 1)   // -32
	contextKernel      = ^uint64(128 - 1)  // -128
	contextUser        = ^uint64(512 - 1)  // -512
	contextGuest       = ^uint64(2048 - 1) // -2048
	contextGuestKernel = ^uint64(2176 - 1) // -2176
	contextGuestUser   = ^uint64(2560 - 1) // -2560
	contextMax         = ^uint64(4095 - 1) // -4095: everything from here up is a marker
)

type mapping struct {
	start, end, pgoff uint64
	dso               *DSO
}

// space is one address space: a process's mappings (or the kernel's), sorted by start. A
// new mapping makes a new space, so Builder.cache never outlives the mappings it was
// resolved against.
type space struct {
	maps []mapping
	used bool // an address was resolved in it
	// shared: another process's too (a fork's copy); a mapping then makes a new space.
	shared bool
}

// fresh says whether the space may change in place: no other process uses it and no
// address was resolved in it (so no Location, and no entry of Builder.cache, depends on
// its mappings). A recording's first records map every process's objects: each such
// mapping costs an insertion, not a copy of the process's list.
func (sp *space) fresh() bool { return sp != nil && !sp.shared && !sp.used }

type locKey struct {
	dso       *DSO
	addr, rel uint64
	caller    bool
}

type symKey struct {
	dso     *DSO
	addr    uint64
	unknown bool
}

// Builder turns records into a Profile. Records must come in time order, as perf.data has
// them (after sorting by time when the file needs it). Not safe for concurrent use.
type Builder struct {
	res     *symbol.Resolver
	p       Profile
	events  map[uint64]*Event
	spaces  map[int]*space // by pid; -1 holds the kernel's
	comms   map[int]string // by tid
	exec    map[int]*DSO   // by pid: the executable
	threads map[Thread]*Thread
	current map[int]*Thread // by tid: the thread its samples name now
	dsos    map[string]*DSO
	locs    map[locKey]*Location
	syms    map[symKey]*Symbol
	unknown *DSO
	// unknownKernel holds kernel-mode addresses that no kernel mapping covers.
	unknownKernel *DSO
	warnOnce      map[string]bool

	agg   *Aggregator // Stream's
	keep  bool        // samples go to Profile.Samples
	stack []*Location // the stack of the sample being built
	slab  []*Location // where kept samples' stacks are copied
	cache [8192]cached
	// branchCache holds branch addresses' locations (locateAny).
	branchCache [1024]branchCached
	branchBuf   []Branch  // the branches of the sample being built, when not kept
	scratch     []mapping // Mmap's

	noChains bool                      // IgnoreCallchains
	inl      map[*Location][]*Location // a call chain's frames at a location (inline.go)
	inlSyms  map[inlKey]*Symbol
}

// NewBuilder returns a Builder resolving through res (nil: no symbols, addresses only).
func NewBuilder(res *symbol.Resolver) *Builder {
	if res == nil {
		res = &symbol.Resolver{}
	}
	b := &Builder{res: res, events: map[uint64]*Event{}, spaces: map[int]*space{}, comms: map[int]string{}, exec: map[int]*DSO{},
		threads: map[Thread]*Thread{}, current: map[int]*Thread{}, dsos: map[string]*DSO{},
		locs: map[locKey]*Location{}, syms: map[symKey]*Symbol{}, warnOnce: map[string]bool{}, keep: true}
	b.unknown = &DSO{Name: Unknown, loaded: true}
	b.unknownKernel = &DSO{Name: Unknown, Kernel: true, loaded: true}
	return b
}

// Stream hands every sample to a as it is built, in order; keep says whether
// Profile().Samples holds them too. Without keep, no sample is kept: a sample's Stack is
// valid only during a.Add.
func (b *Builder) Stream(a *Aggregator, keep bool) {
	b.agg, b.keep = a, keep
}

// IgnoreCallchains makes every sample's stack its sampled address alone: call chains are
// neither resolved nor kept (perf annotate's view: a sample counts where it hit).
func (b *Builder) IgnoreCallchains() { b.noChains = true }

// Event declares a sampled event; samples name it by ID.
func (b *Builder) Event(id uint64, name string) {
	if _, ok := b.events[id]; ok {
		return
	}
	e := &Event{Index: len(b.p.Events), ID: id, Name: name, Leader: len(b.p.Events)}
	b.events[id] = e
	b.p.Events = append(b.p.Events, e)
}

// Group declares that the events from index leader on, members of them (the leader
// included), form a group named name ("" for an anonymous one).
func (b *Builder) Group(leader, members int, name string) {
	evs := b.p.Events
	if leader < 0 || members < 1 || leader+members > len(evs) {
		return
	}
	evs[leader].Members, evs[leader].Group = members, name
	for i := leader; i < leader+members; i++ {
		evs[i].Leader = leader
	}
}

// Comm records a thread's name.
func (b *Builder) Comm(e CommEvent) {
	if e.Exec && e.Pid == e.Tid {
		delete(b.exec, e.Pid) // its next mapping is the new program
	}
	b.comms[e.Tid] = e.Comm
	delete(b.current, e.Tid)
}

// Fork records a new thread or process.
func (b *Builder) Fork(e ForkEvent) {
	if c, ok := b.comms[e.PTid]; ok {
		if _, named := b.comms[e.Tid]; !named || e.Pid != e.PPid {
			b.comms[e.Tid] = c
			delete(b.current, e.Tid)
		}
	}
	if e.Pid != e.PPid {
		if x, ok := b.exec[e.PPid]; ok {
			b.exec[e.Pid] = x
		}
		// The child shares the parent's space until either maps something (Mmap makes a
		// new space).
		if sp := b.spaces[e.PPid]; sp != nil {
			sp.shared = true
			b.spaces[e.Pid] = sp
		} else {
			delete(b.spaces, e.Pid)
		}
	}
}

// Exit records a thread's end (nothing to keep: its samples already name it).
func (b *Builder) Exit(pid, tid int) {}

// Lost counts samples the kernel dropped.
func (b *Builder) Lost(n uint64) { b.p.Lost += n }

// Mmap records an executable mapping; it replaces the part of older mappings it overlaps.
func (b *Builder) Mmap(e MmapEvent) {
	pid := e.Pid
	kernel := e.Kernel || pid == -1
	if kernel {
		pid = -1
	}
	m := mapping{start: e.Start, end: e.Start + e.Len, pgoff: e.Pgoff, dso: b.dso(e.Filename, e.BuildID, kernel)}
	if _, ok := b.exec[pid]; !ok && !kernel && strings.HasPrefix(e.Filename, "/") {
		b.exec[pid] = m.dso
	}
	var old []mapping
	sp := b.spaces[pid]
	if sp != nil {
		old = sp.maps
	}
	i := sort.Search(len(old), func(i int) bool { return old[i].start > m.start })
	if sp.fresh() && (i == 0 || old[i-1].end <= m.start) && (i == len(old) || old[i].start >= m.end) {
		// Overlapping nothing, in a space that may change: inserted in place.
		sp.maps = slices.Insert(sp.maps, i, m)
		return
	}
	// A fresh space is rebuilt in a scratch list and copied back; another gets a new list.
	fresh := sp.fresh()
	var out []mapping
	if fresh {
		out = b.scratch[:0]
	} else {
		out = make([]mapping, 0, len(old)+2)
	}
	for _, o := range old {
		if o.end <= m.start || o.start >= m.end {
			out = append(out, o)
			continue
		}
		// Overlapped: as perf (maps__fixup_overlappings), the parts of the older mapping
		// the new one does not cover stay mapped, each at its own file offset.
		if o.start < m.start {
			out = append(out, mapping{start: o.start, end: m.start, pgoff: o.pgoff, dso: o.dso})
		}
		if o.end > m.end {
			out = append(out, mapping{start: m.end, end: o.end, pgoff: o.pgoff + (m.end - o.start), dso: o.dso})
		}
	}
	i = sort.Search(len(out), func(i int) bool { return out[i].start > m.start })
	out = slices.Insert(out, i, m)
	if fresh {
		sp.maps = append(sp.maps[:0], out...)
		b.scratch = out[:0]
		return
	}
	b.setMaps(pid, out)
}

func (b *Builder) setMaps(pid int, maps []mapping) {
	if len(maps) == 0 {
		delete(b.spaces, pid)
		return
	}
	b.spaces[pid] = &space{maps: maps}
}

func (b *Builder) dso(name, buildID string, kernel bool) *DSO {
	if kernel && strings.HasPrefix(name, symbol.KernelName) {
		name = symbol.KernelName // perf's "[kernel.kallsyms]_text"
	}
	key := name + "\x00" + buildID
	if d, ok := b.dsos[key]; ok {
		return d
	}
	d := &DSO{Name: name, BuildID: buildID, Kernel: kernel}
	b.dsos[key] = d
	b.p.DSOs = append(b.p.DSOs, d)
	return d
}

// load reads d's symbol table the first time an address falls in d.
func (b *Builder) load(d *DSO) {
	if d.loaded {
		return
	}
	d.loaded = true
	d.Table, d.Err = b.res.Open(d.Name, d.BuildID)
	if d.Table != nil && d.BuildID == "" {
		d.BuildID = d.Table.BuildID
	}
	if d.Err != nil {
		b.warn(fmt.Sprintf("no symbols for %s: %v", d.Name, d.Err))
	}
}

func (b *Builder) warn(w string) {
	if !b.warnOnce[w] {
		b.warnOnce[w] = true
		b.p.Warnings = append(b.p.Warnings, w)
	}
}

func (b *Builder) thread(pid, tid int) *Thread {
	if t, ok := b.current[tid]; ok && t.Pid == pid {
		return t
	}
	t := b.newThread(pid, tid)
	b.current[tid] = t
	return t
}

func (b *Builder) newThread(pid, tid int) *Thread {
	key := Thread{Pid: pid, Tid: tid, Comm: b.comms[tid]}
	if key.Comm == "" {
		key.Comm = fmt.Sprintf(":%d", tid) // perf's name for a thread it never saw named
	}
	if t, ok := b.threads[key]; ok {
		return t
	}
	t := &key
	b.threads[key] = t
	b.p.Threads = append(b.p.Threads, t)
	return t
}

// Sample adds a sample.
func (b *Builder) Sample(e SampleEvent) {
	ev, ok := b.events[e.EventID]
	if !ok {
		if len(b.p.Events) == 0 {
			b.Event(e.EventID, "")
		}
		ev = b.p.Events[0]
	}
	s := Sample{Thread: b.thread(e.Pid, e.Tid), Event: ev.Index, Period: e.Period, CPU: e.CPU, Time: e.Time}
	stack := b.stack[:0]
	user, kern := b.spaces[e.Pid], b.spaces[-1]
	if len(e.Callchain) == 0 || b.noChains {
		stack = append(stack, b.locate(user, kern, e.IP, e.Kernel, false))
	} else {
		kernel := e.Kernel
		for _, a := range e.Callchain {
			if a >= contextMax {
				switch a {
				case contextKernel, contextGuestKernel:
					kernel = true
				case contextUser, contextGuestUser:
					kernel = false
				}
				continue
			}
			l := b.locate(user, kern, a, kernel, len(stack) > 0)
			var expanded bool
			if stack, expanded = b.appendFrame(stack, l); expanded && s.Self == nil && len(stack) == len(b.inl[l]) {
				s.Self = l // the entry is the sampled function, the chain starts inside it
			}
		}
		if len(stack) == 0 {
			stack = append(stack, b.locate(user, kern, e.IP, e.Kernel, false))
		}
		if e.IPApart {
			if l := b.locate(user, kern, e.IP, e.Kernel, false); l != stack[0] {
				s.Self = l
			}
		}
	}
	b.stack = stack
	s.Stack = stack
	if len(e.Branches) > 0 {
		s.Branches = b.branches(e, user, kern)
	}
	if b.keep {
		// The kept samples' stacks are cut from one large array, each its own length.
		if len(b.slab) < len(stack) {
			b.slab = make([]*Location, max(1<<14, len(stack)))
		}
		s.Stack = b.slab[:len(stack):len(stack)]
		b.slab = b.slab[len(stack):]
		copy(s.Stack, stack)
	}
	ev.Samples++
	ev.Period += e.Period
	if b.agg != nil {
		b.agg.Add(&s)
	}
	if b.keep {
		b.p.Samples = append(b.p.Samples, s)
	}
}

// locate resolves one address of process pid; caller marks a return address (its line is
// the call's, one byte back).
func (b *Builder) locate(user, kern *space, addr uint64, kernel, caller bool) *Location {
	sp := user
	if kernel {
		sp = kern
	}
	if sp == nil {
		return b.resolve(nil, addr, kernel, caller)
	}
	// A direct-mapped cache before resolve's search and map: most samples repeat a few
	// thousand addresses. Spaces never change, and an entry keeps its space alive, so an
	// entry matching the space and address is right.
	h := addr ^ addr>>13
	if caller {
		h = ^h
	}
	c := &b.cache[h%uint64(len(b.cache))]
	if c.sp == sp && c.addr == addr && c.caller == caller {
		return c.l
	}
	sp.used = true
	l := b.resolve(sp.maps, addr, kernel, caller)
	*c = cached{sp: sp, addr: addr, caller: caller, l: l}
	return l
}

// cached is an entry of Builder.cache.
type cached struct {
	sp     *space
	addr   uint64
	caller bool
	l      *Location
}

// resolve finds the Location of addr in maps.
func (b *Builder) resolve(maps []mapping, addr uint64, kernel, caller bool) *Location {
	var dso *DSO
	var m mapping
	i := sort.Search(len(maps), func(i int) bool { return maps[i].start > addr })
	if i > 0 && addr < maps[i-1].end {
		m = maps[i-1]
		dso = m.dso
	}
	var rel uint64
	off := addr
	if dso != nil {
		off = addr - m.start + m.pgoff
	}
	shown := addr // perf shows an unresolved address relative to its mapping (ip - start + pgoff)
	switch {
	case dso == nil && kernel:
		// No kernel mapping covers the address: as perf, the kernel's symbols (kallsyms,
		// which also map the modules) name it if they can, else it is [unknown] [k].
		dso = b.dso(symbol.KernelName, "", true)
		b.load(dso)
		rel = addr
		if dso.Table == nil || dso.Table.Lookup(addr) == nil {
			dso = b.unknownKernel
		}
	case dso == nil:
		dso, rel = b.unknown, addr
	default:
		b.load(dso)
		rel = dso.Table.MapAddr(addr, m.start, m.pgoff)
		if dso.Table == nil && dso.Kernel {
			rel = addr
		}
		if _, module := moduleName(dso); !dso.Kernel || module {
			shown = addr - m.start + m.pgoff // a module's too, as perf's [mac80211] 0x15cfc
		}
	}
	key := locKey{dso, addr, rel, caller}
	if l, ok := b.locs[key]; ok {
		return l
	}
	l := &Location{DSO: dso, Addr: addr, Rel: rel, Off: off}
	var fr symbol.Frame
	if dso.Table != nil {
		fr = dso.Table.Resolve(rel)
		if caller && rel > 0 && dso.Table.Lines != nil {
			fr.File, fr.Line = dso.Table.Lines.Lookup(rel - 1)
		}
	}
	l.File, l.Line = fr.File, fr.Line
	if fr.Sym != nil && fr.Sym.Module != "" && dso.Name == symbol.KernelName {
		l.DSO = b.moduleDSO(fr.Sym.Module, dso)
	}
	l.Sym = b.symbol(l.DSO, fr.Sym, rel, shown)
	b.locs[key] = l
	if !l.DSO.sampled {
		l.DSO.sampled = true
		b.p.Sampled = append(b.p.Sampled, l.DSO)
	}
	return l
}

func (b *Builder) moduleDSO(module string, kernel *DSO) *DSO {
	name := "[" + module + "]"
	if d, ok := b.dsos[name+"\x00"]; ok {
		b.load(d)
		return d
	}
	d := &DSO{Name: name, Kernel: true, Table: kernel.Table, loaded: true}
	b.dsos[name+"\x00"] = d
	b.p.DSOs = append(b.p.DSOs, d)
	return d
}

func (b *Builder) symbol(dso *DSO, s *symbol.Sym, rel, shown uint64) *Symbol {
	if s == nil {
		key := symKey{dso, rel, true}
		if y, ok := b.syms[key]; ok {
			return y
		}
		name := unknownName(shown)
		y := &Symbol{Name: name, Raw: name, DSO: dso, Start: rel, Unknown: true}
		b.syms[key] = y
		return y
	}
	key := symKey{dso, s.Addr, false}
	if y, ok := b.syms[key]; ok {
		return y
	}
	y := &Symbol{Name: symbol.DemangleShort(s.Name), Raw: s.Name, DSO: dso, Start: s.Addr, Size: s.Size}
	if dso.Table != nil {
		y.File, y.Line = dso.Table.Lines.Lookup(s.Addr)
	}
	b.syms[key] = y
	return y
}

// unknownName is perf's name for an address without a symbol.
func unknownName(addr uint64) string {
	if addr == 0 {
		return "0000000000000000" // perf prints with C's "%#.16llx", which omits 0x for 0
	}
	const hex = "0123456789abcdef"
	var b [18]byte // "0x%016x", without fmt's cost: a report names thousands of addresses
	b[0], b[1] = '0', 'x'
	for i := 17; i >= 2; i-- {
		b[i] = hex[addr&15]
		addr >>= 4
	}
	return string(b[:])
}

// Profile returns the profile built so far.
func (b *Builder) Profile() *Profile {
	p := b.p
	if len(p.Events) == 0 {
		p.Events = []*Event{{Name: ""}}
	}
	p.Comms, p.Exec = b.comms, b.exec
	return &p
}

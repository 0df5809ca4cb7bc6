package profile

import (
	"cmp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Aggregator builds the reports of a profile's events sample by sample, so samples need
// not be kept (Builder.Stream): Add each sample in order, then Reports.
//
// Samples of one event, thread (and CPU, when a key shows it) with the same stack are
// counted once with their summed period: the distinct stacks are aggregated in the order
// of their first sample, which gives the entries and call trees the order the samples
// themselves would.
type Aggregator struct {
	o      Options
	hasCPU bool
	evs    []*aggregation // by event index
	seen   []*Entry
	tasks  []treeTask

	stacks map[uint64]int32 // hash -> index in uniq of the first with it
	uniq   []stackCount
	done   int         // uniq[:done] are aggregated
	slab   []*Location // where the stacks in uniq are copied
	nodes  nodeAlloc
	// raws and rawSyms are the twins of unresolved locations that --children entries
	// name by their raw address.
	raws          [][2]*Location // by the location's id, then its level (kernel: 1)
	rawSyms       map[rawSymKey]*Symbol
	unknownKernel *DSO               // [unknown] at perf's level k
	branchCache   []branchCacheEntry // addBranches', made on first use
	kern          []bool             // the levels of the stack being added
	// inlTwins and inlNames give inlined frames one graph node per name (inline.go).
	inlTwins map[*Location]*Location
	inlNames map[string]*Symbol
}

// stackCount is the samples of one event and thread with one stack.
type stackCount struct {
	event   int
	thread  *Thread
	cpu     int
	stack   []*Location
	self    *Location   // the sample's entry when not stack[0] (Sample.Self)
	graph   []*Location // stack as the call trees see it (graphStack), once aggregated
	period  uint64
	samples uint64
	next    int32 // the next in uniq with the same hash, -1 for none
}

// aggregation is one event's report in progress.
type aggregation struct {
	total   uint64
	samples uint64 // the branch view's branches
	byKey   map[string]*Entry
	byKeys  map[[4]string]*Entry // by the values of up to 4 sort keys (entryByKey)
	byLoc   map[threadLoc]*Entry
	// byBranch: the branch view's entries by their branches (addBranches).
	byBranch map[branchKey]*Entry
	entries  []*Entry // in creation order
}

// Samples of one thread at one location always fall in the same entry: that pair is looked
// up before the key is built.
type threadLoc struct {
	t *Thread
	l *Location
	c int
}

// NewAggregator validates o's sort keys (DefaultSort when empty).
func NewAggregator(o Options) (*Aggregator, error) {
	if len(o.Sort) == 0 {
		o.Sort = DefaultSort
	}
	if err := CheckSort(o.Sort); err != nil {
		return nil, err
	}
	if o.Branch {
		o.Sort, o.Children, o.CallGraph = BranchSort, false, false
	}
	return &Aggregator{o: o, hasCPU: slices.Contains(o.Sort, "cpu"), stacks: map[uint64]int32{},
		rawSyms:       map[rawSymKey]*Symbol{},
		unknownKernel: &DSO{Name: Unknown, Kernel: true, loaded: true}}, nil
}

// locIDs numbers Locations for the stack keys (0: not numbered yet).
var locIDs atomic.Uint32

func locID(l *Location) uint32 {
	if l.id == 0 {
		l.id = locIDs.Add(1)
	}
	return l.id
}

// Add counts one sample. Neither the sample nor its stack is kept. Reports ends the
// aggregation: no Add after it.
func (a *Aggregator) Add(s *Sample) {
	if a.o.Branch {
		a.addBranches(s)
		return
	}
	stack := s.Stack
	if !a.o.Children && !a.o.CallGraph {
		stack = stack[:1] // only where the sample hit counts
	}
	cpu := 0
	if a.hasCPU {
		cpu = s.CPU
	}
	h := mix(mix(mix(uint64(s.Event), uint64(s.Thread.Tid)), uint64(s.Thread.Pid)), uint64(cpu))
	for _, l := range stack {
		h = mix(h, uint64(locID(l)))
	}
	if s.Self != nil {
		h = mix(h, uint64(locID(s.Self)))
	}
	first, ok := a.stacks[h]
	if ok {
		for i := first; i >= 0; i = a.uniq[i].next {
			u := &a.uniq[i]
			if u.event == s.Event && u.thread == s.Thread && u.cpu == cpu && u.self == s.Self && slices.Equal(u.stack, stack) {
				u.period += s.Period
				u.samples++
				return
			}
		}
	} else {
		first = -1
	}
	a.stacks[h] = int32(len(a.uniq))
	if len(a.slab) < len(stack) {
		a.slab = make([]*Location, max(1<<14, len(stack)))
	}
	st := a.slab[:len(stack):len(stack)]
	a.slab = a.slab[len(stack):]
	copy(st, stack)
	if len(a.uniq) == cap(a.uniq) {
		a.uniq = slices.Grow(a.uniq, max(len(a.uniq), 256)) // doubling, not append's quarter
	}
	a.uniq = append(a.uniq, stackCount{event: s.Event, thread: s.Thread, cpu: cpu, stack: st, self: s.Self,
		period: s.Period, samples: 1, next: first})
}

// mix folds v into the hash h.
func mix(h, v uint64) uint64 {
	h ^= v + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	return h * 0xff51afd7ed558ccd
}

// aggregate counts the stacks not aggregated yet into their entries, then builds the call
// trees: each entry's trees by one worker, every tree's paths added in the stacks' order.
func (a *Aggregator) aggregate() {
	a.tasks = a.tasks[:0]
	for i := a.done; i < len(a.uniq); i++ {
		a.add(i)
	}
	a.done = len(a.uniq)
	a.buildTrees()
}

// treeTask adds stack uniq[u] to a tree of e: its Callers (j < 0), or its Callees from
// frame j down to the leaf.
type treeTask struct {
	e    *Entry
	u, j int32
	self bool // the whole stack, outermost caller first, into e.SelfPaths
	// callee (with self): the leaf first instead.
	callee bool
}

// treeWork is the number of tree steps below which the trees are built on the calling
// goroutine alone.
var treeWork = 1 << 16 // a var for the tests

func (a *Aggregator) buildTrees() {
	if a.o.ShownGraph {
		a.tasks = slices.DeleteFunc(a.tasks, func(t treeTask) bool { return !a.drawn(t.e, a.uniq[t.u].event) })
	}
	if len(a.tasks) == 0 {
		return
	}
	// Share the entries among the workers, largest first, each to the least loaded.
	workers := min(runtime.GOMAXPROCS(0), 4)
	var total int
	var entries []*Entry
	for _, t := range a.tasks {
		if t.e.work == 0 {
			entries = append(entries, t.e)
		}
		w := int(t.j) + 1
		if t.j < 0 || t.self {
			w = len(a.uniq[t.u].stack)
		}
		t.e.work += w
		total += w
	}
	if total < treeWork {
		workers = 1
	}
	slices.SortStableFunc(entries, func(x, y *Entry) int { return cmp.Compare(y.work, x.work) })
	load := make([]int, workers)
	for _, e := range entries {
		w := slices.Index(load, slices.Min(load))
		e.worker = uint8(w)
		load[w] += e.work
		e.work = 0
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.treeWorker(uint8(w), &nodeAlloc{})
		}()
	}
	a.treeWorker(0, &a.nodes)
	wg.Wait()
}

// drawn says whether the text report may draw a graph under entry e of event ev: every
// branch of its graph is at most its period (Self, or Children with children), so below
// the graph threshold, or under --percent-limit (the entry is not shown), none is drawn.
// A group's report divides by a larger total still.
func (a *Aggregator) drawn(e *Entry, ev int) bool {
	lim := e.Self
	if a.o.Children {
		lim = e.Children
	}
	r := Report{Total: a.evs[ev].total}
	pct := r.Percent(lim)
	return pct >= GraphMinPercent && !(a.o.PercentLimit > 0 && pct < a.o.PercentLimit)
}

func (a *Aggregator) treeWorker(w uint8, na *nodeAlloc) {
	var rev []*Location
	for _, t := range a.tasks {
		if t.e.worker != w {
			continue
		}
		u := &a.uniq[t.u]
		stack := u.graph
		if t.self {
			rev = append(rev[:0], u.hit()) // the root: this entry
			if t.callee {
				rev = append(rev, stack...)
			} else {
				for k := len(stack) - 1; k >= 0; k-- {
					rev = append(rev, stack[k])
				}
			}
			t.e.SelfPaths.add(rev, u.period, na)
			continue
		}
		if t.j < 0 {
			t.e.Callers.add(stack, u.period, na)
			continue
		}
		rev = rev[:0]
		for k := t.j; k >= 0; k-- {
			rev = append(rev, stack[k])
		}
		t.e.Callees.add(rev, u.period, na)
	}
}

func (g *aggregation) entryByKey(o *Options, s *stackCount, l *Location) *Entry {
	var arr, keys [4]string
	vals := arr[:0]
	if len(o.Sort) > len(arr) {
		vals = make([]string, 0, len(o.Sort))
	}
	smp := Sample{Thread: s.thread, CPU: s.cpu}
	var kb strings.Builder
	for i, k := range o.Sort {
		v := value(k, &smp, l)
		vals = append(vals, v)
		if k == "sym" && l.DSO.Name == Unknown {
			// perf matches addresses in no mapping by address alone: the level ([k],
			// [.]) shown is the first one's.
			v = l.Sym.Name
		}
		if k == "sym" && l.Sym.Inlined {
			// An inlined function's entries are one per function it is inlined into.
			v += "\x00" + strconv.FormatUint(l.Sym.Start, 16)
		}
		if len(o.Sort) <= len(keys) {
			keys[i] = v // up to 4 keys: the values are the map key, nothing is joined
			continue
		}
		if i > 0 {
			kb.WriteByte(0)
		}
		kb.WriteString(v)
	}
	var e *Entry
	if len(o.Sort) <= len(keys) {
		e = g.byKeys[keys]
	} else {
		e = g.byKey[kb.String()]
	}
	if e == nil {
		e = &Entry{Values: slices.Clone(vals), Thread: s.thread, DSO: l.DSO, Sym: l.Sym, Kernel: l.Kernel()}
		if len(o.Sort) <= len(keys) {
			g.byKeys[keys] = e
		} else {
			g.byKey[kb.String()] = e
		}
		g.entries = append(g.entries, e)
	}
	return e
}

func (a *Aggregator) entry(g *aggregation, s *stackCount, l *Location) *Entry {
	k := threadLoc{s.thread, l, -1}
	if a.hasCPU {
		k.c = s.cpu
	}
	if e, ok := g.byLoc[k]; ok {
		return e
	}
	e := g.entryByKey(&a.o, s, l)
	g.byLoc[k] = e
	return e
}

// aggregationOf is event ev's aggregation, made on first use.
func (a *Aggregator) aggregationOf(ev int) *aggregation {
	for len(a.evs) <= ev {
		a.evs = append(a.evs, nil)
	}
	g := a.evs[ev]
	if g == nil {
		g = &aggregation{byKey: map[string]*Entry{}, byKeys: map[[4]string]*Entry{}, byLoc: map[threadLoc]*Entry{}}
		a.evs[ev] = g
	}
	return g
}

// add counts the samples of stack uniq[u] and queues its paths for the call trees.
func (a *Aggregator) add(u int) {
	s := &a.uniq[u]
	g := a.aggregationOf(s.event)
	o := &a.o
	stack, period := s.stack, s.period
	if o.CallGraph {
		s.graph = a.graphStack(stack)
	}
	g.total += period
	leaf := a.entry(g, s, s.hit())
	leaf.Self += period
	leaf.Samples += s.samples
	// perf draws a graph for a call chain of one frame too.
	if o.CallGraph && (len(stack) > 1 || !o.Children) && !o.ShownGraph {
		if leaf.Callers == nil {
			leaf.Callers = &Node{}
		}
		a.tasks = append(a.tasks, treeTask{e: leaf, u: int32(u), j: -1})
	}
	if !o.Children {
		if o.CallGraph {
			// The graph the text draws: perf's, from a root above the frames.
			if leaf.SelfPaths == nil {
				leaf.SelfPaths = &Node{}
			}
			a.tasks = append(a.tasks, treeTask{e: leaf, u: int32(u), self: true, callee: !o.CallerOrder})
		}
		return
	}
	if o.CallGraph {
		if leaf.SelfPaths == nil {
			leaf.SelfPaths = &Node{}
		}
		a.tasks = append(a.tasks, treeTask{e: leaf, u: int32(u), self: true})
	}
	// perf's order: the sample's own entry first, then the frames from the outermost caller
	// in; an entry met again (recursion) counts once, at its outermost frame, and its
	// callee tree starts there.
	// perf's level of each frame: a frame in no mapping keeps the level of the one perf
	// visited before it (fill_callchain_info leaves it as it was): the sample itself, then
	// the frames from the outermost caller in.
	kern := append(a.kern[:0], make([]bool, len(stack))...)
	prev := stack[0].Kernel()
	for j := len(stack) - 1; j >= 0; j-- {
		k := stack[j].Kernel()
		if stack[j].DSO.Name == Unknown {
			k = prev
		}
		kern[j], prev = k, k
	}
	a.kern = kern
	seen := a.seen[:0]
	if s.self != nil {
		// The sampled function's entry, then every frame of the chain, which starts with
		// functions inlined into it.
		seen = append(seen, leaf)
		leaf.Children += period
		leaf.depth = max(leaf.depth, len(stack))
	}
	for i := range stack {
		j := len(stack) - i // 0 (the leaf) first, then len-1 down to 1
		if i == 0 {
			j = 0
		}
		if j == len(stack) {
			continue
		}
		e := leaf
		if j > 0 || s.self != nil {
			e = a.entry(g, s, a.raw(stack[j], kern[j]))
		}
		if slices.Contains(seen, e) {
			continue // recursion: a sample counts once per entry
		}
		seen = append(seen, e)
		e.Children += period
		// perf's callchain depth of the entry: the whole chain for the sampled entry,
		// the frames from here down to the sample for a caller.
		d := j + 1
		if j == 0 && s.self == nil {
			d = len(stack)
		}
		e.depth = max(e.depth, d)
		if o.CallGraph {
			if e.Callees == nil {
				e.Callees = &Node{}
			}
			a.tasks = append(a.tasks, treeTask{e: e, u: int32(u), j: int32(j)})
		}
	}
	// perf counts the sampled address once more as a frame of its call chain: the same
	// entry when its symbol is known, else one of its own named by the raw address.
	if r := a.raw(stack[0], kern[0]); r != stack[0] {
		if e := a.entry(g, s, r); !slices.Contains(seen, e) {
			seen = append(seen, e)
			e.Children += period
			e.depth = max(e.depth, 1)
			if o.CallGraph {
				if e.Callees == nil {
					e.Callees = &Node{}
				}
				a.tasks = append(a.tasks, treeTask{e: e, u: int32(u), j: 0})
			}
		}
	}
	a.seen = seen
}

// raw is l as perf's cumulative (--children) entries see a frame: the same location when
// its symbol is known (or it is the kernel's), else a twin whose symbol is the raw address
// (perf names a self entry by its address in the DSO, a frame by the process's address);
// kernel is the frame's level, which a frame in no mapping inherits.
func (a *Aggregator) raw(l *Location, kernel bool) *Location {
	if !l.Sym.Unknown {
		return l
	}
	id, lvl := locID(l), 0
	if kernel {
		lvl = 1
	}
	if int(id) >= len(a.raws) {
		n := max(int(id)+1, 2*len(a.raws))
		a.raws = slices.Grow(a.raws, n-len(a.raws))[:n]
	}
	slot := &a.raws[id][lvl]
	if *slot != nil {
		return *slot
	}
	if l.Kernel() == kernel && unknownName(l.Addr) == l.Sym.Name {
		*slot = l // the kernel's own addresses are their names; a module's are not
		return l
	}
	dso := l.DSO
	if kernel != l.Kernel() {
		dso = a.unknownKernel
	}
	name := unknownName(l.Addr)
	sk := rawSymKey{dso, l.Addr}
	y, ok := a.rawSyms[sk]
	if !ok {
		y = &Symbol{Name: name, Raw: name, DSO: dso, Start: l.Addr, Unknown: true}
		a.rawSyms[sk] = y
	}
	c := *l
	c.DSO, c.Sym, c.id = dso, y, 0
	a.raws[id][lvl] = &c // a.raws may have moved: locID(&c) is not called here
	return &c
}

// hit is the location the samples' entry is named by.
func (s *stackCount) hit() *Location {
	if s.self != nil {
		return s.self
	}
	return s.stack[0]
}

// graphStack is stack as perf's call graphs match frames: a frame without a symbol by its
// DSO and process address (two processes' frames at one DSO offset are two nodes), an
// inlined function by its name.
func (a *Aggregator) graphStack(stack []*Location) []*Location {
	var out []*Location
	for i, l := range stack {
		r := a.raw(l, l.Kernel())
		if l.Sym.Inlined {
			r = a.inlinedByName(l)
		}
		if r != l && out == nil {
			out = append(make([]*Location, 0, len(stack)), stack[:i]...)
		}
		if out != nil {
			out = append(out, r)
		}
	}
	if out == nil {
		return stack
	}
	return out
}

type rawSymKey struct {
	dso  *DSO
	addr uint64
}

// Reports finishes the report of every event of p, in p.Events' order.
func (a *Aggregator) Reports(p *Profile) []*Report {
	a.aggregate()
	out := make([]*Report, 0, len(p.Events))
	for _, e := range p.Events {
		out = append(out, a.report(e))
	}
	return out
}

func (a *Aggregator) report(ev *Event) *Report {
	a.aggregate()
	o := a.o
	r := &Report{Event: ev, Sort: o.Sort, Options: o, Samples: ev.Samples}
	var g *aggregation
	if ev.Index < len(a.evs) {
		g = a.evs[ev.Index]
	}
	if g == nil {
		return r
	}
	r.Total = g.total
	if o.Branch {
		r.Samples = g.samples
	}
	for _, e := range g.entries {
		if !o.Children {
			e.Children = e.Self
		}
		lim := e.Self
		if o.Children {
			lim = e.Children
		}
		if o.PercentLimit > 0 && r.Percent(lim) < o.PercentLimit {
			r.Dropped = append(r.Dropped, e)
			continue
		}
		if e.Callers != nil {
			e.Callers.finish()
		}
		if e.Callees != nil {
			e.Callees.finish()
		}
		if e.SelfPaths != nil {
			e.SelfPaths.finish()
		}
		r.Entries = append(r.Entries, e)
	}
	sort.Slice(r.Entries, func(i, j int) bool {
		a, b := r.Entries[i], r.Entries[j]
		if o.KeysOnly {
			return keyLess(o.Sort, a, b)
		}
		if o.SelfOnly {
			if a.Self != b.Self {
				return a.Self > b.Self
			}
			return keyLess(o.Sort, a, b)
		}
		if o.Children && a.Children != b.Children {
			return a.Children > b.Children
		}
		if o.Children && a.Thread == b.Thread && a.depth != b.depth {
			return a.depth > b.depth // perf puts a caller above its callee when they tie
		}
		if a.Self != b.Self {
			return a.Self > b.Self
		}
		if o.Branch {
			return branchLess(a, b)
		}
		return keyLess(o.Sort, a, b)
	})
	return r
}

package profile

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// SortKeys are the keys Report groups by, as perf report --sort names them.
var SortKeys = []string{"comm", "pid", "tid", "dso", "sym", "srcline", "cpu"}

// DefaultSort is perf report's default.
var DefaultSort = []string{"comm", "dso", "sym"}

// Options chooses how Report aggregates.
type Options struct {
	Sort     []string // keys from SortKeys; DefaultSort when empty
	Children bool     // also accumulate each sample's period into every caller's entry
	// PercentLimit drops entries below this share of the event's total (of Children when
	// Children is set, else of Self), like perf report --percent-limit.
	PercentLimit float64
	// CallGraph keeps the call paths of each entry (perf report -g).
	CallGraph bool
}

// Report is the aggregation of one event's samples.
type Report struct {
	Event   *Event
	Sort    []string
	Options Options
	Entries []*Entry // sorted: highest Children (with Children) or Self first
	Total   uint64   // the event's total period: the 100%
	// Dropped are the entries below Options.PercentLimit: not shown, but perf sizes its
	// columns with them.
	Dropped []*Entry
}

// Entry is one row: the samples whose key values are equal.
type Entry struct {
	Values   []string // one per sort key, as perf prints them
	Thread   *Thread  // the first sample's (for comm, pid, tid)
	DSO      *DSO
	Sym      *Symbol
	Kernel   bool
	Self     uint64 // period of the samples that hit here
	Children uint64 // Self plus the period of samples with this entry among their callers
	Samples  uint64 // samples that hit here
	// Callers is the tree of call paths that led here (leaf side at the root: this entry,
	// then its callers), from the samples that hit here; Callees the paths from here to
	// where samples hit, from every sample with this entry on its stack. Only with
	// Options.CallGraph and call chains.
	Callers, Callees *Node

	depth int // perf's callchain depth, to order ties in Children (caller above callee)
}

// Node is a node of a call tree: a symbol (or address) and the period through it.
type Node struct {
	Name     string
	DSO      string
	Period   uint64
	Children []*Node // sorted by period, highest first
	sym      *Symbol
	index    map[*Symbol]*Node
}

// Percent of the report's total.
func (r *Report) Percent(period uint64) float64 {
	if r.Total == 0 {
		return 0
	}
	return 100 * float64(period) / float64(r.Total)
}

// CheckSort validates sort keys, returning a one-line error naming the valid ones.
func CheckSort(keys []string) error {
	for _, k := range keys {
		ok := false
		for _, v := range SortKeys {
			ok = ok || k == v
		}
		if !ok {
			return fmt.Errorf("unknown sort key %q: use %s", k, strings.Join(SortKeys, ","))
		}
	}
	return nil
}

// Reports aggregates every event of p.
func Reports(p *Profile, o Options) ([]*Report, error) {
	a, err := NewAggregator(o)
	if err != nil {
		return nil, err
	}
	for i := range p.Samples {
		a.Add(&p.Samples[i])
	}
	return a.Reports(p), nil
}

// Aggregate builds the report of event ev.
func Aggregate(p *Profile, ev int, o Options) (*Report, error) {
	a, err := NewAggregator(o)
	if err != nil {
		return nil, err
	}
	if ev < 0 || ev >= len(p.Events) {
		return nil, fmt.Errorf("no event %d in the profile", ev)
	}
	for i := range p.Samples {
		if p.Samples[i].Event == ev {
			a.Add(&p.Samples[i])
		}
	}
	return a.report(p.Events[ev]), nil
}

// Aggregator builds the reports of a profile's events sample by sample, so samples need
// not be kept (Builder.Stream): Add each sample in order, then Reports.
type Aggregator struct {
	o      Options
	hasCPU bool
	evs    []*aggregation // by event index
	seen   []*Entry
	rev    []*Location
}

// aggregation is one event's report in progress.
type aggregation struct {
	total   uint64
	byKey   map[string]*Entry
	byLoc   map[threadLoc]*Entry
	entries []*Entry // in creation order
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
	return &Aggregator{o: o, hasCPU: slices.Contains(o.Sort, "cpu")}, nil
}

func (g *aggregation) entryByKey(o *Options, s *Sample, l *Location) *Entry {
	var arr [4]string
	vals := arr[:0]
	if len(o.Sort) > len(arr) {
		vals = make([]string, 0, len(o.Sort))
	}
	for _, k := range o.Sort {
		vals = append(vals, value(k, s, l))
	}
	key := strings.Join(vals, "\x00")
	e, ok := g.byKey[key]
	if !ok {
		e = &Entry{Values: slices.Clone(vals), Thread: s.Thread, DSO: l.DSO, Sym: l.Sym, Kernel: l.Kernel()}
		g.byKey[key] = e
		g.entries = append(g.entries, e)
	}
	return e
}

func (a *Aggregator) entry(g *aggregation, s *Sample, l *Location) *Entry {
	k := threadLoc{s.Thread, l, -1}
	if a.hasCPU {
		k.c = s.CPU
	}
	if e, ok := g.byLoc[k]; ok {
		return e
	}
	e := g.entryByKey(&a.o, s, l)
	g.byLoc[k] = e
	return e
}

// Add aggregates one sample. The sample and its stack are not kept.
func (a *Aggregator) Add(s *Sample) {
	for len(a.evs) <= s.Event {
		a.evs = append(a.evs, nil)
	}
	g := a.evs[s.Event]
	if g == nil {
		g = &aggregation{byKey: map[string]*Entry{}, byLoc: map[threadLoc]*Entry{}}
		a.evs[s.Event] = g
	}
	o := &a.o
	g.total += s.Period
	leaf := a.entry(g, s, s.Stack[0])
	leaf.Self += s.Period
	leaf.Samples++
	if o.CallGraph && len(s.Stack) > 1 {
		if leaf.Callers == nil {
			leaf.Callers = &Node{}
		}
		leaf.Callers.add(s.Stack, s.Period)
	}
	if !o.Children {
		return
	}
	seen := a.seen[:0]
	for j, l := range s.Stack {
		e := leaf
		if j > 0 {
			e = a.entry(g, s, l)
		}
		if slices.Contains(seen, e) {
			continue // recursion: a sample counts once per entry
		}
		seen = append(seen, e)
		e.Children += s.Period
		// perf's callchain depth of the entry: the whole chain for the sampled entry,
		// the frames from here down to the sample for a caller.
		d := j + 1
		if j == 0 {
			d = len(s.Stack)
		}
		e.depth = max(e.depth, d)
		if o.CallGraph && len(s.Stack) > 1 {
			if e.Callees == nil {
				e.Callees = &Node{}
			}
			rev := a.rev[:0]
			for k := j; k >= 0; k-- {
				rev = append(rev, s.Stack[k])
			}
			a.rev = rev
			e.Callees.add(rev, s.Period)
		}
	}
	a.seen = seen
}

// Reports finishes the report of every event of p, in p.Events' order.
func (a *Aggregator) Reports(p *Profile) []*Report {
	out := make([]*Report, 0, len(p.Events))
	for _, e := range p.Events {
		out = append(out, a.report(e))
	}
	return out
}

func (a *Aggregator) report(ev *Event) *Report {
	o := a.o
	r := &Report{Event: ev, Sort: o.Sort, Options: o}
	var g *aggregation
	if ev.Index < len(a.evs) {
		g = a.evs[ev.Index]
	}
	if g == nil {
		return r
	}
	r.Total = g.total
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
		r.Entries = append(r.Entries, e)
	}
	sort.Slice(r.Entries, func(i, j int) bool {
		a, b := r.Entries[i], r.Entries[j]
		if o.Children && a.Children != b.Children {
			return a.Children > b.Children
		}
		if o.Children && a.Thread == b.Thread && a.depth != b.depth {
			return a.depth > b.depth // perf puts a caller above its callee when they tie
		}
		if a.Self != b.Self {
			return a.Self > b.Self
		}
		return keyLess(o.Sort, a, b)
	})
	return r
}

// keyLess orders entries of equal period as perf report does: by each key in turn, names
// ascending, with what has no mapping or no symbol after what has.
func keyLess(keys []string, a, b *Entry) bool {
	for i, k := range keys {
		switch k {
		case "dso":
			au, bu := a.DSO.Name == Unknown, b.DSO.Name == Unknown
			if au != bu {
				return bu
			}
		case "sym":
			if a.Sym.Unknown != b.Sym.Unknown {
				return b.Sym.Unknown
			}
			if a.Sym.Unknown && a.Sym.Start != b.Sym.Start {
				return a.Sym.Start < b.Sym.Start
			}
			if a.Sym.Name != b.Sym.Name {
				return a.Sym.Name < b.Sym.Name
			}
			continue
		}
		if a.Values[i] != b.Values[i] {
			return a.Values[i] < b.Values[i]
		}
	}
	return false
}

func value(key string, s *Sample, l *Location) string {
	switch key {
	case "comm":
		return s.Thread.Comm
	case "pid":
		return fmt.Sprintf("%d:%s", s.Thread.Pid, s.Thread.Comm)
	case "tid":
		return fmt.Sprintf("%d:%s", s.Thread.Tid, s.Thread.Comm)
	case "dso":
		return dsoName(l.DSO)
	case "sym":
		mark := "[.] "
		if l.Kernel() {
			mark = "[k] "
		}
		return mark + l.Sym.Name
	case "srcline":
		if l.File == "" {
			return fmt.Sprintf("%s[%x]", dsoName(l.DSO), l.Rel)
		}
		return l.File + ":" + strconv.Itoa(l.Line)
	case "cpu":
		return strconv.Itoa(s.CPU)
	}
	return ""
}

// dsoName is the Shared Object column: the file's base name, as perf shows it.
func dsoName(d *DSO) string {
	if strings.HasPrefix(d.Name, "[") {
		return d.Name
	}
	return d.Name[strings.LastIndexByte(d.Name, '/')+1:]
}

// DSOName is the name perf report shows for a DSO (its base name, or "[...]" as is).
func DSOName(d *DSO) string { return dsoName(d) }

// add adds a path (its first element at the top of the tree) with its period; the root
// itself stands for path[0].
func (n *Node) add(path []*Location, period uint64) {
	if n.Name == "" {
		n.Name, n.DSO = path[0].Sym.Name, dsoName(path[0].DSO)
	}
	n.Period += period
	cur := n
	for _, l := range path[1:] {
		c := cur.child(l)
		c.Period += period
		cur = c
	}
}

// indexAt is the number of children from which a node indexes them by symbol in a map
// rather than searching them in turn.
const indexAt = 8

// child returns the child for l's symbol (one Symbol per DSO and name), adding it.
func (n *Node) child(l *Location) *Node {
	if n.index != nil {
		if c, ok := n.index[l.Sym]; ok {
			return c
		}
	} else {
		for _, c := range n.Children {
			if c.sym == l.Sym {
				return c
			}
		}
	}
	c := &Node{Name: l.Sym.Name, DSO: dsoName(l.DSO), sym: l.Sym}
	n.Children = append(n.Children, c)
	switch {
	case n.index != nil:
		n.index[l.Sym] = c
	case len(n.Children) > indexAt:
		n.index = make(map[*Symbol]*Node, 2*len(n.Children))
		for _, c := range n.Children {
			n.index[c.sym] = c
		}
	}
	return c
}

func (n *Node) finish() {
	sort.SliceStable(n.Children, func(i, j int) bool { return n.Children[i].Period > n.Children[j].Period })
	n.index = nil
	for _, c := range n.Children {
		c.finish()
	}
}

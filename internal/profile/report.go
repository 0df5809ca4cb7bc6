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
	var out []*Report
	for _, e := range p.Events {
		r, err := Aggregate(p, e.Index, o)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Aggregate builds the report of event ev.
func Aggregate(p *Profile, ev int, o Options) (*Report, error) {
	if len(o.Sort) == 0 {
		o.Sort = DefaultSort
	}
	if err := CheckSort(o.Sort); err != nil {
		return nil, err
	}
	if ev < 0 || ev >= len(p.Events) {
		return nil, fmt.Errorf("no event %d in the profile", ev)
	}
	r := &Report{Event: p.Events[ev], Sort: o.Sort, Options: o}
	byKey := map[string]*Entry{}
	// Samples of one thread at one location always fall in the same entry: look that pair
	// up before building the key.
	type tl struct {
		t *Thread
		l *Location
		c int
	}
	byLoc := map[tl]*Entry{}
	hasCPU := slices.Contains(o.Sort, "cpu")
	entryByKey := func(s *Sample, l *Location) *Entry {
		vals := make([]string, len(o.Sort))
		for i, k := range o.Sort {
			vals[i] = value(k, s, l)
		}
		key := strings.Join(vals, "\x00")
		e, ok := byKey[key]
		if !ok {
			e = &Entry{Values: vals, Thread: s.Thread, DSO: l.DSO, Sym: l.Sym, Kernel: l.Kernel()}
			byKey[key] = e
		}
		return e
	}
	entry := func(s *Sample, l *Location) *Entry {
		k := tl{s.Thread, l, -1}
		if hasCPU {
			k.c = s.CPU
		}
		if e, ok := byLoc[k]; ok {
			return e
		}
		e := entryByKey(s, l)
		byLoc[k] = e
		return e
	}
	var seen []*Entry
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Event != ev {
			continue
		}
		r.Total += s.Period
		leaf := entry(s, s.Stack[0])
		leaf.Self += s.Period
		leaf.Samples++
		if o.CallGraph && len(s.Stack) > 1 {
			if leaf.Callers == nil {
				leaf.Callers = &Node{}
			}
			leaf.Callers.add(s.Stack, s.Period)
		}
		if !o.Children {
			continue
		}
		seen = seen[:0]
		for j, l := range s.Stack {
			e := leaf
			if j > 0 {
				e = entry(s, l)
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
				rev := make([]*Location, j+1)
				for k := 0; k <= j; k++ {
					rev[k] = s.Stack[j-k]
				}
				e.Callees.add(rev, s.Period)
			}
		}
	}
	for _, e := range byKey {
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
	return r, nil
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
		if cur.index == nil {
			cur.index = map[*Symbol]*Node{}
		}
		c, ok := cur.index[l.Sym] // one Symbol per DSO and name
		if !ok {
			c = &Node{Name: l.Sym.Name, DSO: dsoName(l.DSO)}
			cur.index[l.Sym] = c
			cur.Children = append(cur.Children, c)
		}
		c.Period += period
		cur = c
	}
}

func (n *Node) finish() {
	sort.SliceStable(n.Children, func(i, j int) bool { return n.Children[i].Period > n.Children[j].Period })
	n.index = nil
	for _, c := range n.Children {
		c.finish()
	}
}

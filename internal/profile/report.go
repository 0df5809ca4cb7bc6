package profile

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SortKeys are the keys Report groups by, as perf report --sort names them.
var SortKeys = []string{"comm", "pid", "tid", "dso", "sym", "srcline", "cpu"}

// branchKeys are the sort keys only the branch view has (BranchSort).
var branchKeys = []string{"dso_from", "symbol_from", "symbol_to", "cycles"}

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
	// ShownGraph builds only the call trees the text report draws: Callees and SelfPaths
	// (not Callers), and only for the entries that have a branch of at least
	// GraphMinPercent of the total and are not under PercentLimit.
	ShownGraph bool
	// CallerOrder draws the graphs of --no-children from the outermost caller down (perf's
	// -g caller, the order of a bare -g); SelfPaths holds them.
	CallerOrder bool
	// Branch is perf's branch view: entries of the samples' branch stacks (Sort is
	// BranchSort), each branch counted once; samples without a branch stack count nothing.
	Branch bool
	// KeysOnly is perf report -F with sort keys and no overhead field: entries in the
	// order of their keys, no percentage shown. SelfOnly is -F overhead,KEYS: the Self
	// percentage alone (Overhead), entries by Self then keys, whether or not Children
	// made them.
	KeysOnly, SelfOnly bool
}

// GraphMinPercent is perf report's default call-graph threshold (-g graph,0.5): branches
// below 0.5% of the total are not drawn.
const GraphMinPercent = 0.5

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
	// Members (group view, Group): the reports of the group's events, the leader first;
	// each entry's Group holds their periods in this order, Total is their sum.
	Members []*Report
	// Samples is what the report counts: the event's samples, or in the branch view the
	// branches.
	Samples uint64
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
	// SelfPaths (with CallGraph): the call paths of the samples
	// that hit here, outermost caller first: this entry at the root, under it each outermost
	// caller and the path down to this entry, as perf report --children draws them; without
	// Children in callee order (not CallerOrder), the same paths leaf first, under the
	// root each frame the samples hit.
	SelfPaths *Node
	// Group (group view): each member event's periods, in Report.Members' order.
	Group []GroupMember
	// Branch (branch view): the entry's first branch.
	Branch *Branch

	depth  int   // perf's callchain depth, to order ties in Children (caller above callee)
	work   int   // the tree steps queued for the entry, while its trees are built
	worker uint8 // which builds its trees
}

// Node is a node of a call tree: a symbol (or address) and the period through it.
type Node struct {
	Name     string
	DSO      string
	Period   uint64
	Children []*Node // sorted by period, highest first
	sym      *Symbol
	ends     uint64            // the period of the paths that end here, until finish
	index    map[*Symbol]*Node // of Children by symbol, for nodes with many
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
				// perf compares the addresses as signed: a kernel's come first
				return int64(a.Sym.Start) < int64(b.Sym.Start)
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
		return mark + l.Sym.ShownName()
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

// dsoName is the Shared Object column: the file's base name, as perf shows it; a kernel
// module's "[name]" (perf's kmod_path__parse_name: no .ko suffix, '-' as '_').
func dsoName(d *DSO) string {
	if strings.HasPrefix(d.Name, "[") {
		return d.Name
	}
	base := d.Name[strings.LastIndexByte(d.Name, '/')+1:]
	if m, ok := moduleName(d); ok {
		return m
	}
	return base
}

// moduleName is perf's name of a kernel module's DSO, when d is one.
func moduleName(d *DSO) (string, bool) {
	if !d.Kernel {
		return "", false
	}
	base := d.Name[strings.LastIndexByte(d.Name, '/')+1:]
	for _, ext := range []string{".ko", ".ko.xz", ".ko.gz", ".ko.zst"} {
		if m, ok := strings.CutSuffix(base, ext); ok {
			return "[" + strings.ReplaceAll(m, "-", "_") + "]", true
		}
	}
	return "", false
}

// DSOName is the name perf report shows for a DSO (its base name, or "[...]" as is).
func DSOName(d *DSO) string { return dsoName(d) }

// add adds a path (its first element at the top of the tree) with its period; the root
// itself stands for path[0].
func (n *Node) add(path []*Location, period uint64, na *nodeAlloc) {
	if n.Name == "" {
		n.Name, n.DSO = nodeName(path[0]), dsoName(path[0].DSO)
	}
	cur := n
	for _, l := range path[1:] {
		cur = cur.child(l, na)
	}
	cur.ends += period
}

// nodeName is how perf names a frame of a call graph: its symbol, or its process address
// as C's "%#llx" prints it ("0" for 0).
func nodeName(l *Location) string {
	if !l.Sym.Unknown {
		return l.Sym.ShownName()
	}
	if l.Addr == 0 {
		return "0"
	}
	return "0x" + strconv.FormatUint(l.Addr, 16)
}

// indexAt is the number of children from which a node indexes them by symbol in a map
// rather than searching them in turn.
const indexAt = 8

// child returns the child for l's symbol (one Symbol per DSO and name), adding it.
func (n *Node) child(l *Location, na *nodeAlloc) *Node {
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
	c := na.node()
	c.Name, c.DSO, c.sym = nodeName(l), dsoName(l.DSO), l.Sym
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

// nodeAlloc hands out Nodes cut from larger arrays.
type nodeAlloc struct{ free []Node }

func (na *nodeAlloc) node() *Node {
	if len(na.free) == 0 {
		na.free = make([]Node, 1024)
	}
	n := &na.free[0]
	na.free = na.free[1:]
	return n
}

// finish sums the periods (each path added its period only where it ended) and sorts the
// children.
func (n *Node) finish() {
	n.Period = n.ends
	for _, c := range n.Children {
		c.finish()
		n.Period += c.Period
	}
	slices.SortStableFunc(n.Children, func(a, b *Node) int {
		if c := cmp.Compare(b.Period, a.Period); c != 0 || a.sym == nil || b.sym == nil {
			return c
		}
		return cmp.Compare(b.sym.Start, a.sym.Start) // perf's order of equal branches
	})
	n.index = nil
}

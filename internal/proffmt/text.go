package proffmt

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/result"
)

// columnName is the header name perf report gives sort key k ("" for an unknown key; a
// switch, not a map: no work at package init).
func columnName(k string) string {
	switch k {
	case "comm":
		return "Command"
	case "pid", "tid":
		return "Pid:Command"
	case "dso":
		return "Shared Object"
	case "sym":
		return "Symbol"
	case "srcline":
		return "Source:Line"
	case "cpu":
		return "CPU"
	case "dso_from":
		return "Source Shared Object"
	case "symbol_from":
		return "Source Symbol"
	case "symbol_to":
		return "Target Symbol"
	case "cycles":
		return "Basic Block Cycles"
	}
	return ""
}

// Text writes the reports the way perf report --stdio lays them out: a header per event
// (lost samples, sample count, event, total period), the column header, one row per entry,
// and with a call graph the entry's call tree under it.
func Text(w io.Writer, p *profile.Profile, reports []*profile.Report) error {
	return text(w, p, reports, "# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n")
}

// TextAfterHeader writes the reports as perf report --header does after the header
// (Header).
func TextAfterHeader(w io.Writer, p *profile.Profile, reports []*profile.Report) error {
	return text(w, p, reports, "#\n")
}

func text(w io.Writer, p *profile.Profile, reports []*profile.Report, intro string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(intro)
	fmt.Fprintf(bw, "# Total Lost Samples: %d\n#\n", p.Lost)
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintf(bw, "\n\n")
		}
		writeReport(bw, p, r)
	}
	fmt.Fprintf(bw, "\n\n#\n# (Tip: pmc report --html FILE draws a flame graph)\n#\n")
	return bw.Flush()
}

// SampleCount is perf's short form of a sample count with its unit letter, a space when
// there is none: "61 ", "4K", "12M".
func SampleCount(n uint64) string {
	switch {
	case n > 1000*1000*1000:
		return fmt.Sprintf("%dG", n/(1000*1000*1000))
	case n > 1000*1000:
		return fmt.Sprintf("%dM", n/(1000*1000))
	case n > 1000:
		return fmt.Sprintf("%dK", n/1000)
	}
	return fmt.Sprintf("%d ", n)
}

func writeReport(w *bufio.Writer, p *profile.Profile, r *profile.Report) {
	samples, name := r.Samples, r.Event.Name
	if r.Members != nil {
		samples, name = 0, profile.GroupDesc(eventsOf(r.Members))
		for _, m := range r.Members {
			samples += m.Samples
		}
	}
	plural := ""
	if r.Event.Members > 1 { // perf says "events" for a group leader, grouped or not
		plural = "s"
	}
	fmt.Fprintf(w, "# Samples: %s of event%s '%s'\n", SampleCount(samples), plural, result.Printable(name))
	fmt.Fprintf(w, "# Event count (approx.): %d\n#\n", r.Total)
	var heads []string
	switch {
	case r.Options.KeysOnly: // perf report -F KEYS: no percentages
	case r.Options.Children && !r.Options.SelfOnly:
		heads = append(heads, "Children", "Self")
	default:
		heads = append(heads, "Overhead")
	}
	nPct := len(heads)
	for _, k := range r.Sort {
		heads = append(heads, columnName(k))
	}
	widths := make([]int, len(heads))
	for i, h := range heads {
		widths[i] = len(h)
		if i < nPct && widths[i] < 8*max(1, len(r.Members)) {
			widths[i] = 8 * max(1, len(r.Members)) // a group: 8 columns per member
		}
	}
	// perf sizes the columns for every entry, those below --percent-limit too (names from
	// files are shown with their control characters escaped), and cuts
	// what does not fit (hists__calc_col_len): a command by the length of its thread's
	// last name, a branch's source DSO only when its symbol resolved.
	limited := make([]bool, len(heads))
	for _, e := range append(r.Entries[:len(r.Entries):len(r.Entries)], r.Dropped...) {
		for j, v := range e.Values {
			switch r.Sort[j] {
			case "comm":
				limited[nPct+j] = true
				if c, ok := p.Comms[e.Thread.Tid]; ok {
					v = c
				}
			case "dso_from":
				limited[nPct+j] = true
				if e.Branch != nil && e.Branch.From.Sym.Unknown {
					continue
				}
			case "dso":
				// An unresolved symbol widens the column to an address's 16 digits.
				if e.Sym != nil && e.Sym.Unknown && widths[nPct+j] < unresolvedWidth {
					widths[nPct+j] = unresolvedWidth
				}
			}
			n := len(printable(v))
			if r.Sort[j] == "sym" && e.Sym != nil && e.Sym.Inlined {
				n -= len(profile.InlinedSuffix) // perf sizes the column by the name alone
			}
			if n > widths[nPct+j] {
				widths[nPct+j] = n
			}
		}
	}
	// appendLine appends a row's cells, cut and padded to the columns (the percentages
	// padded on the left).
	appendLine := func(b []byte, cells []string, padLast bool) []byte {
		for i, c := range cells {
			if limited[i] && len(c) > widths[i] {
				c = c[:widths[i]]
			}
			if i > 0 {
				b = append(b, "  "...)
			}
			pad := max(0, widths[i]-len(c))
			switch {
			case i < nPct:
				b = appendSpaces(b, pad)
				b = append(b, c...)
			case i == len(cells)-1 && !padLast:
				b = append(b, c...)
			default:
				b = append(b, c...)
				b = appendSpaces(b, pad)
			}
		}
		return b
	}
	line := func(cells []string, padLast bool) string { return string(appendLine(nil, cells, padLast)) }
	dots := make([]string, len(heads))
	for i := range heads {
		dots[i] = strings.Repeat(".", widths[i])
	}
	// The header's "# " stands before the first column: rows are two wider there (a
	// percentage right-aligned, a key after two spaces).
	fmt.Fprintf(w, "# %s\n# %s\n#\n", line(heads, true), line(dots, true))
	lead := ""
	if nPct > 0 {
		widths[0] += 2
	} else {
		lead = "  "
	}
	// perf pads every column but a last symbol or source line.
	padLast := true
	if k := r.Sort[len(r.Sort)-1]; k == "sym" || k == "srcline" {
		padLast = false
	}
	var cells []string
	var row []byte
	for _, e := range r.Entries {
		cells = cells[:0]
		switch {
		case r.Options.KeysOnly:
		case r.Options.SelfOnly && r.Members == nil:
			cells = append(cells, pct(r.Percent(e.Self)))
		case r.Members != nil && r.Options.Children:
			cells = append(cells, groupPct(r, e, true), groupPct(r, e, false))
		case r.Members != nil:
			cells = append(cells, groupPct(r, e, false))
		case r.Options.Children:
			cells = append(cells, pct(r.Percent(e.Children)), pct(r.Percent(e.Self)))
		default:
			cells = append(cells, pct(r.Percent(e.Self)))
		}
		for _, v := range e.Values {
			cells = append(cells, printable(v))
		}
		row = append(appendLine(append(row[:0], lead...), cells, padLast), '\n')
		w.Write(row)
		if !r.Options.CallGraph {
			continue
		}
		indent := strings.Repeat(" ", widths[0]+2)
		if nPct == 0 {
			indent = strings.Repeat(" ", 12) // perf's left margin of a graph
		}
		switch {
		case r.Options.Children && (e.Callees != nil || e.SelfPaths != nil):
			if writeChildrenGraph(w, r, e, indent) {
				fmt.Fprintf(w, "\n")
			}
		case !r.Options.Children && e.SelfPaths != nil:
			if writeBranches(w, r, e.SelfPaths.Children, e.Self, indent) {
				fmt.Fprintf(w, "\n")
			}
		}
	}
}

// appendSpaces appends n spaces.
func appendSpaces(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// printable is result.Printable, without its rune-by-rune look at plain ASCII text.
func printable(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return result.Printable(s)
		}
	}
	return s
}

// unresolvedWidth is perf's unresolved_col_width (a 64-bit address in hex).
const unresolvedWidth = 16

func pct(v float64) string { return string(appendPct(nil, v)) }

// groupPct is a grouped entry's percentages, one per member of its own total, each right
// aligned in 8 columns.
func groupPct(r *profile.Report, e *profile.Entry, children bool) string {
	var b []byte
	for i, m := range r.Members {
		v := e.Group[i].Self
		if children {
			v = e.Group[i].Children
		}
		p := appendPct(nil, m.Percent(v))
		for n := len(p); n < 8; n++ {
			b = append(b, ' ')
		}
		b = append(b, p...)
	}
	return strings.TrimLeft(string(b), " ")
}

func eventsOf(rs []*profile.Report) []*profile.Event {
	out := make([]*profile.Event, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Event)
	}
	return out
}

// appendPct appends v as "%.2f%%" formats it.
func appendPct(b []byte, v float64) []byte {
	return append(strconv.AppendFloat(b, v, 'f', 2, 64), '%')
}

// graphMinPercent is perf report's default call-graph threshold (-g graph,0.5): branches
// below 0.5% of the total are not drawn.
const graphMinPercent = profile.GraphMinPercent

// writeGraph draws a call tree perf's way: a straight chain while there is one path,
// "|--P%--name" branches where it splits or narrows (P of the report's total), and perf's
// continuation lines one column to the right of the branch's name.
func writeGraph(w *bufio.Writer, r *profile.Report, n *profile.Node, indent string) {
	fmt.Fprintf(w, "%s|\n%s---%s\n", indent, indent, result.Printable(n.Name))
	g := graph{w: w, r: r, indent: append(make([]byte, 0, 256), indent+"   "...)}
	g.chain(n)
}

// writeChildrenGraph draws an entry's graph in --children mode as perf does: one branch for
// the samples that went on from here to callees (its callee tree, the entry's self period
// taken out) and one per outermost caller of the samples that hit here (their paths down to
// the entry), the largest first; a single branch holding the whole period is drawn as a
// plain chain.
func writeChildrenGraph(w *bufio.Writer, r *profile.Report, e *profile.Entry, indent string) (drawn bool) {
	var branches []*profile.Node
	if x := e.Callees; x != nil && x.Period > e.Self {
		branches = append(branches, &profile.Node{Name: x.Name, DSO: x.DSO, Period: x.Period - e.Self, Children: x.Children})
	}
	if e.SelfPaths != nil {
		branches = append(branches, e.SelfPaths.Children...)
	}
	return writeBranches(w, r, branches, e.Children, indent)
}

// writeBranches draws branches of period total as one graph: nothing when every branch is
// under perf's threshold, a plain chain when one branch holds it all.
func writeBranches(w *bufio.Writer, r *profile.Report, branches []*profile.Node, total uint64, indent string) (drawn bool) {
	branches = slices.Clone(branches)
	slices.SortStableFunc(branches, func(a, b *profile.Node) int { return cmp.Compare(b.Period, a.Period) })
	if len(branches) == 0 || r.Percent(branches[0].Period) < graphMinPercent {
		return false // perf draws nothing when every branch is under its threshold
	}
	root := &profile.Node{Period: total, Children: branches}
	if len(branches) == 1 && branches[0].Period == root.Period {
		writeGraph(w, r, branches[0], indent)
		return true
	}
	g := graph{w: w, r: r, indent: append(make([]byte, 0, 256), indent...)}
	g.chain(root)
	return true
}

// graph writes the lines under a tree's root; indent grows and shrinks with the depth.
type graph struct {
	w      *bufio.Writer
	r      *profile.Report
	indent []byte
	pct    []byte
}

func (g *graph) chain(n *profile.Node) {
	w := g.w
	for len(n.Children) == 1 && n.Children[0].Period == n.Period {
		n = n.Children[0]
		w.Write(g.indent)
		w.WriteString(result.Printable(n.Name))
		w.WriteByte('\n')
	}
	if len(n.Children) == 0 {
		return
	}
	depth := len(g.indent)
	shown := n.Children[:0:0]
	for _, c := range n.Children {
		if g.r.Percent(c.Period) >= graphMinPercent {
			shown = append(shown, c)
		}
	}
	for i, c := range shown {
		last := i == len(shown)-1
		g.pct = appendPct(g.pct[:0], g.r.Percent(c.Period))
		w.Write(g.indent)
		w.WriteString("|          \n")
		w.Write(g.indent)
		if last {
			w.WriteString(" --")
		} else {
			w.WriteString("|--")
		}
		w.Write(g.pct)
		w.WriteString("--")
		w.WriteString(result.Printable(c.Name))
		w.WriteByte('\n')
		if last {
			g.indent = append(g.indent, "           "...)
		} else {
			g.indent = append(g.indent, "|          "...)
		}
		g.chain(c)
		g.indent = g.indent[:depth]
	}
}

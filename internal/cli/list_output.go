package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// collect gathers every entry of `pmc list`, filtered by pattern.
func (m *machine) collect(extra *catalog.Table, pattern string) *listing {
	l := &listing{Schema: "pmc.list/v1", CPU: m.cpuString(), Note: m.note}
	if m.core != nil {
		l.CorePMU = m.core.Name
	}
	if m.table != nil {
		l.Table, l.TableTitle = m.table.Name, m.table.Title
	}
	var all []listEntry
	for _, s := range softwareEvents {
		all = append(all, listEntry{Name: s.names[0], Aliases: s.names[1:], Kind: "software", PMU: "software",
			Available: true, Status: "countable", Description: s.desc})
	}
	aliases := map[string][]string{"cpu-cycles": {"cycles"}, "branch-instructions": {"branches"},
		"stalled-cycles-frontend": {"idle-cycles-frontend"}, "stalled-cycles-backend": {"idle-cycles-backend"}}
	for _, kind := range []string{"hardware", "cache"} {
		names := catalog.HardwareNames
		if kind == "cache" {
			names = catalog.CacheNames
		}
		for _, n := range names {
			e := listEntry{Name: n, Aliases: aliases[n], Kind: kind}
			if m.table == nil {
				e.Status = "unknown CPU: no event table (use --cpu)"
			} else {
				g := m.effective(n)
				e.Available, e.Status = m.genericStatus(g)
				if g.Supported {
					e.MapsTo = fmt.Sprintf("%s (%s)", g.Event.Name, g.Event.CodeString(m.table.Arch))
					e.Code, e.UMask = codeFields(g.Event, m.table.Arch)
					e.Encoding = g.Event.PerfSyntax(m.table.Arch)
					e.Description = g.Event.Brief
				}
				e.Caveat = g.Caveat
			}
			all = append(all, e)
		}
	}
	all = append(all, m.pmuEntries()...)
	if pattern != "" && strings.Contains(pattern, ":") {
		all = append(all, m.tracepointEntries()...)
	}
	if m.table != nil {
		all = append(all, tableEntries(m.table, "table", m)...)
	}
	if extra != nil {
		all = append(all, tableEntries(extra, "extra", m)...)
	}
	l.Tracepoints = m.countTracepoints()
	for _, e := range all {
		if matchPattern(pattern, e) {
			l.Events = append(l.Events, e)
		}
	}
	return l
}

func codeFields(e catalog.Event, arch string) (code, umask string) {
	code = fmt.Sprintf("0x%02x", e.Code)
	if e.HasUMask {
		umask = fmt.Sprintf("0x%02x", e.UMask)
	}
	return code, umask
}

func tableEntries(t *catalog.Table, kind string, m *machine) []listEntry {
	var out []listEntry
	for _, ev := range t.Events() {
		e := listEntry{Name: ev.Name, Kind: kind, PMU: ev.Unit, Encoding: ev.PerfSyntax(t.Arch), Description: ev.Description()}
		e.Code, e.UMask = codeFields(ev, t.Arch)
		if kind == "extra" {
			e.Available, e.Status = m.core != nil, "from --event-file"
			if m.core == nil {
				e.Status = "from --event-file (not countable here: no cpu PMU)"
			}
		} else {
			e.Available, e.Status = m.tableStatus()
		}
		out = append(out, e)
	}
	return out
}

// pmuEntries lists the sysfs events of every PMU that has some, and the breakpoint syntax.
func (m *machine) pmuEntries() []listEntry {
	if m.sys == nil {
		return nil
	}
	var out []listEntry
	for _, name := range m.sys.Names() {
		p := m.sys.PMUs[name]
		for _, ev := range p.EventNames() {
			a := p.Events[ev]
			desc := a.Terms
			if a.Unit != "" {
				desc += " (unit " + a.Unit + ")"
			}
			out = append(out, listEntry{Name: name + "/" + ev + "/", Kind: "pmu", PMU: name,
				Available: true, Status: "countable", Description: desc})
		}
	}
	if _, ok := m.sys.PMUs["breakpoint"]; ok {
		out = append(out, listEntry{Name: "mem:ADDR[/LEN][:ACCESS]", Kind: "breakpoint", PMU: "breakpoint",
			Available: true, Status: "countable", Description: "hardware breakpoint on a data or code address"})
	}
	return out
}

func (m *machine) tracepointEntries() []listEntry {
	var out []listEntry
	for _, sub := range pmu.TracepointNames(m.sysFS, "") {
		for _, n := range pmu.TracepointNames(m.sysFS, sub) {
			out = append(out, listEntry{Name: sub + ":" + n, Kind: "tracepoint", PMU: "tracepoint",
				Available: true, Status: "countable"})
		}
	}
	return out
}

func (m *machine) countTracepoints() int {
	n := 0
	for _, sub := range pmu.TracepointNames(m.sysFS, "") {
		n += len(pmu.TracepointNames(m.sysFS, sub))
	}
	return n
}

var sectionTitles = []struct{ kind, title string }{
	{"software", "Software events"},
	{"hardware", "Hardware events (generic perf names; = the raw event on this CPU)"},
	{"cache", "Hardware cache events (generic perf names)"},
	{"pmu", "PMU events (sysfs)"},
	{"breakpoint", "Breakpoints"},
	{"tracepoint", "Tracepoints"},
	{"table", "Events of table %s"},
	{"extra", "Events from --event-file"},
}

func writeListText(w io.Writer, l *listing, long bool) error {
	fmt.Fprintf(w, "CPU:      %s\n", l.CPU)
	if l.Table != "" {
		fmt.Fprintf(w, "Table:    %s (%s)\n", l.Table, l.TableTitle)
	} else {
		fmt.Fprintf(w, "Table:    none for this CPU (pick one with --cpu; pmc list --cpu help)\n")
	}
	if l.Note != "" {
		fmt.Fprintf(w, "Note:     %s\n", l.Note)
	}
	if l.CorePMU != "" {
		fmt.Fprintf(w, "Core PMU: %s\n", l.CorePMU)
	} else {
		fmt.Fprintf(w, "Core PMU: none in /sys/bus/event_source/devices: hardware events cannot be counted here\n")
	}
	for _, s := range sectionTitles {
		var es []listEntry
		for _, e := range l.Events {
			if e.Kind == s.kind {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			continue
		}
		title := s.title
		if strings.Contains(title, "%s") {
			title = fmt.Sprintf(title, l.Table)
		}
		common := commonStatus(es)
		if common == "countable" {
			fmt.Fprintf(w, "\n%s (%d):\n", title, len(es))
		} else {
			fmt.Fprintf(w, "\n%s (%d; %s unless marked):\n", title, len(es), common)
		}
		if s.kind == "pmu" || s.kind == "tracepoint" {
			es = sortedEntries(es)
		}
		for _, e := range es {
			writeEntry(w, e, common, long)
		}
	}
	if l.Tracepoints > 0 {
		fmt.Fprintf(w, "\nTracepoints: %d (list them with pmc list 'SUBSYSTEM:*' or pmc list '*:*')\n", l.Tracepoints)
	}
	return nil
}

// commonStatus is the status most entries of a section share (the first one on a tie).
func commonStatus(es []listEntry) string {
	n := map[string]int{}
	best := ""
	for _, e := range es {
		n[e.Status]++
		if best == "" || n[e.Status] > n[best] {
			best = e.Status
		}
	}
	return best
}

func writeEntry(w io.Writer, e listEntry, common string, long bool) {
	name := strings.Join(append([]string{e.Name}, e.Aliases...), " OR ")
	tag := e.Kind
	if e.Kind == "table" || e.Kind == "extra" {
		tag = e.Code
		if e.UMask != "" {
			tag += "/" + e.UMask
		}
	}
	if e.Status != common {
		tag += "; " + e.Status
	}
	line := fmt.Sprintf("  %-42s [%s]", name, tag)
	if e.MapsTo != "" {
		line += " = " + e.MapsTo
	}
	fmt.Fprintln(w, strings.TrimRight(line, " "))
	if !long {
		return
	}
	for _, text := range []string{e.Description, e.Caveat} {
		if text != "" {
			for _, l := range wrap(text, 88) {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
}

// wrap splits text into lines of at most width runes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	var cur []string
	n := 0
	for _, word := range strings.Fields(text) {
		if n > 0 && n+1+len(word) > width {
			lines = append(lines, strings.Join(cur, " "))
			cur, n = nil, 0
		}
		if n > 0 {
			n++
		}
		cur = append(cur, word)
		n += len(word)
	}
	if len(cur) > 0 {
		lines = append(lines, strings.Join(cur, " "))
	}
	return lines
}

package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// collect gathers every entry of `pmc list`, filtered by pattern.
func collect(m *host.Machine, extra *catalog.Table, pattern string) *listing {
	l := &listing{Schema: "pmc.list/v1", CPU: m.CPUString(), Note: m.Note}
	if m.Core != nil {
		l.CorePMU = m.Core.Name
	}
	if m.Table != nil {
		l.Table, l.TableTitle = m.Table.Name, m.Table.Title
		if m.Table.Counters != nil {
			l.Counters = m.Table.Counters.String()
		}
	}
	l.Browsed = m.Browsed
	var all []listEntry
	for _, s := range events.Symbols() {
		if s.Class == events.Software {
			all = append(all, listEntry{Name: s.Name, Aliases: s.Aliases, Kind: "software", PMU: "software",
				Available: true, Status: "countable", Description: s.Desc})
		}
	}
	for _, kind := range []string{"hardware", "cache"} {
		names := catalog.HardwareNames()
		if kind == "cache" {
			names = catalog.CacheNames()
		}
		for _, n := range names {
			sym, _ := events.LookupSymbol(n)
			e := listEntry{Name: n, Aliases: sym.Aliases, Kind: kind}
			if m.Table == nil {
				e.Status = "unknown CPU: no event table (use --cpu)"
			} else {
				g := m.Effective(n)
				e.Available, e.Status = m.GenericStatus(g)
				if g.Supported {
					e.MapsTo = fmt.Sprintf("%s (%s)", g.Event.Name, g.Event.CodeString(m.Table.Arch))
					e.Code, e.UMask = codeFields(g.Event, m.Table.Arch)
					e.Encoding = g.Event.PerfSyntax(m.Table.Arch)
					e.Description = g.Event.Brief
				}
				e.Caveat = g.Caveat
			}
			all = append(all, e)
		}
	}
	if !m.Browsed { // another CPU's table: this machine's sysfs and tracepoints are not its
		all = append(all, pmuEntries(m)...)
		if strings.Contains(pattern, ":") || strings.EqualFold(pattern, "tracepoint") {
			all = append(all, tracepointEntries(m)...)
		}
		l.Tracepoints = countTracepoints(m)
	}
	if m.Table != nil {
		all = append(all, tableEntries(m.Table, "table", m)...)
	}
	if extra != nil {
		all = append(all, tableEntries(extra, "extra", m)...)
	}
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

func tableEntries(t *catalog.Table, kind string, m *host.Machine) []listEntry {
	var out []listEntry
	for _, ev := range t.Sorted() { // by code, as the manuals list them
		e := listEntry{Name: ev.Name, Kind: kind, PMU: ev.Unit, Encoding: ev.PerfSyntax(t.Arch), Description: ev.Description()}
		e.Code, e.UMask = codeFields(ev, t.Arch)
		if kind == "extra" {
			e.Available, e.Status = m.Core != nil, "from --event-file"
			if m.Core == nil {
				e.Status = "from --event-file (not countable here: no cpu PMU)"
			}
		} else {
			e.Available, e.Status = m.TableStatus()
		}
		out = append(out, e)
	}
	return out
}

// pmuEntries lists the sysfs events of every PMU that has some, and the breakpoint syntax.
func pmuEntries(m *host.Machine) []listEntry {
	var out []listEntry
	for _, name := range m.PMUs.Names() {
		p := m.PMUs.PMUs[name]
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
	if _, ok := m.PMUs.PMUs["breakpoint"]; ok {
		out = append(out, listEntry{Name: "mem:ADDR[/LEN][:ACCESS]", Kind: "breakpoint", PMU: "breakpoint",
			Available: true, Status: "countable", Description: "hardware breakpoint on a data or code address"})
	}
	return out
}

func tracepointEntries(m *host.Machine) []listEntry {
	var out []listEntry
	for _, sub := range pmu.TracepointNames(m.Sys, "") {
		for _, n := range pmu.TracepointNames(m.Sys, sub) {
			out = append(out, listEntry{Name: sub + ":" + n, Kind: "tracepoint", PMU: "tracepoint",
				Available: true, Status: "countable"})
		}
	}
	return out
}

func countTracepoints(m *host.Machine) int {
	n := 0
	for _, sub := range pmu.TracepointNames(m.Sys, "") {
		n += len(pmu.TracepointNames(m.Sys, sub))
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
	if l.Counters != "" {
		fmt.Fprintf(w, "Counters: %s\n", l.Counters)
	}
	if l.Note != "" {
		fmt.Fprintf(w, "Note:     %s\n", l.Note)
	}
	if l.Browsed {
		fmt.Fprintf(w, "Browsing: %s's table, not this machine's CPU: nothing here is counted on this machine\n", l.Table)
	}
	if l.Browsed {
		// this machine's PMU says nothing about the browsed CPU
	} else if l.CorePMU != "" {
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

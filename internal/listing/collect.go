package listing

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// collect gathers every entry of `pmc list`, filtered by pattern.
func collect(m *host.Machine, extra *catalog.Table, pattern string) *Listing {
	l := &Listing{Schema: "pmc.list/v1", CPU: m.CPUString(), Note: m.Note}
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
	var all []Entry
	for _, s := range events.Symbols() {
		if s.Class == events.Software {
			all = append(all, Entry{Name: s.Name, Aliases: s.Aliases, Kind: "software", PMU: "software",
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
			e := Entry{Name: n, Aliases: sym.Aliases, Kind: kind}
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

func tableEntries(t *catalog.Table, kind string, m *host.Machine) []Entry {
	var out []Entry
	for _, ev := range t.Sorted() { // by code, as the manuals list them
		e := Entry{Name: ev.Name, Kind: kind, PMU: ev.Unit, Encoding: ev.PerfSyntax(t.Arch), Description: ev.Description()}
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
func pmuEntries(m *host.Machine) []Entry {
	var out []Entry
	for _, name := range m.PMUs.Names() {
		p := m.PMUs.PMUs[name]
		for _, ev := range p.EventNames() {
			a := p.Events[ev]
			desc := a.Terms
			if a.Unit != "" {
				desc += " (unit " + a.Unit + ")"
			}
			out = append(out, Entry{Name: name + "/" + ev + "/", Kind: "pmu", PMU: name,
				Available: true, Status: "countable", Description: desc})
		}
	}
	if _, ok := m.PMUs.PMUs["breakpoint"]; ok {
		out = append(out, Entry{Name: "mem:ADDR[/LEN][:ACCESS]", Kind: "breakpoint", PMU: "breakpoint",
			Available: true, Status: "countable", Description: "hardware breakpoint on a data or code address"})
	}
	return out
}

func tracepointEntries(m *host.Machine) []Entry {
	var out []Entry
	for _, sub := range pmu.TracepointNames(m.Sys, "") {
		for _, n := range pmu.TracepointNames(m.Sys, sub) {
			out = append(out, Entry{Name: sub + ":" + n, Kind: "tracepoint", PMU: "tracepoint",
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

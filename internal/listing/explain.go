package listing

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// ExplainOptions are pmc explain's flags.
type ExplainOptions struct {
	CPU       string // explain for this table instead of the machine's
	EventFile string // also look in this pmu-events or Intel perfmon JSON file or directory
}

// compareTables are shown under "On other CPUs" for generic names.
var compareTables = []string{"arm1176", "cortex-a7", "cortex-a72", "neoverse-n1", "intel-arch", "amd-zen3"}

// Explain writes what the event name counts on the machine on (or on o.CPU's table): a
// software event, a sysfs PMU event or tracepoint, a generic perf name (the raw event the
// driver programs, its caveats, the other CPUs' meaning), a table event or a raw code.
func Explain(w io.Writer, on *host.Machine, o ExplainOptions, name string) error {
	m, err := machineFor(on, o.CPU)
	if err != nil {
		return err
	}
	if s, ok := events.LookupSymbol(name); ok && s.Class == events.Software {
		fmt.Fprintf(w, "%s: software event, counted by the kernel on every machine (no PMU needed).\n  %s.\n", s.Name, s.Desc)
		return nil
	}
	if explainSysfs(w, m, name) {
		return nil
	}
	if canon, ok := catalog.CanonicalGeneric(name); ok {
		if m.Table == nil {
			return fmt.Errorf("%s is a generic event, but this CPU (%s) has no event table; name one with --cpu", canon, m.CPUString())
		}
		explainGeneric(w, m, canon)
		return nil
	}
	tables := []*catalog.Table{}
	if m.Table != nil {
		tables = append(tables, m.Table)
	}
	if o.EventFile != "" {
		extra, err := loadEventFile(m, o.EventFile)
		if err != nil {
			return err
		}
		tables = append(tables, extra)
	}
	if len(tables) == 0 {
		return fmt.Errorf("this CPU (%s) has no event table; name one with --cpu", m.CPUString())
	}
	for _, t := range tables {
		if ev, ok := t.Lookup(name); ok {
			explainEvent(w, m, t, ev)
			return nil
		}
	}
	if code, ok := RawCode(name); ok {
		return explainRaw(w, m, tables, name, code)
	}
	return fmt.Errorf("unknown event %s for %s%s; pmc list shows every name", events.Short(name), tables[0].Name, explainSuggestion(tables, name))
}

// explainRaw explains r03 (a raw config, decoded as the hardware reads it: event and unit mask
// on x86) or 0x03 (an event code, with every unit mask).
func explainRaw(w io.Writer, m *host.Machine, tables []*catalog.Table, name string, code uint64) error {
	isConfig := strings.HasPrefix(strings.ToLower(strings.TrimSpace(name)), "r")
	var decoded string
	for _, t := range tables {
		evs := t.ByCode(code)
		if isConfig {
			evs, decoded = t.ByConfig(code)
		}
		if len(evs) == 0 {
			continue
		}
		for i, ev := range evs {
			if i > 0 {
				fmt.Fprintln(w)
			}
			explainEvent(w, m, t, ev)
		}
		return nil
	}
	t := tables[0]
	if !isConfig {
		return fmt.Errorf("no event 0x%x in table %s; pmc list --cpu %s table lists its events", code, t.Name, t.Name)
	}
	msg := fmt.Sprintf("no event in table %s counts %s (config 0x%x, %s)", t.Name, name, code, decoded)
	if t.Arch == "x86" {
		var others []string
		for _, ev := range t.ByCode(code&0xff | (code>>24)&0xf00) {
			others = append(others, fmt.Sprintf("%s (r%x)", ev.Name, ev.Config(t.Arch)))
		}
		if len(others) > 0 {
			msg += "; the same event with a unit mask: " + strings.Join(others, ", ")
		}
	}
	return errors.New(msg)
}

// explainSysfs handles PMU/event/ names from sysfs and SUBSYSTEM:NAME tracepoints.
func explainSysfs(w io.Writer, m *host.Machine, name string) bool {
	if m.PMUs != nil && strings.Count(name, "/") == 2 && strings.HasSuffix(name, "/") {
		p, ev, _ := strings.Cut(strings.TrimSuffix(name, "/"), "/")
		if pm, ok := m.PMUs.PMUs[p]; ok {
			if a, ok := pm.Events[ev]; ok {
				fmt.Fprintf(w, "%s: sysfs event of PMU %s (perf_event_attr.type %d), terms %s.\n", name, p, pm.Type, a.Terms)
				if a.Unit != "" || a.Scale != 1 {
					fmt.Fprintf(w, "  Counts are multiplied by %g and shown in %s.\n", a.Scale, a.Unit)
				}
				fmt.Fprintf(w, "  On this machine: countable.\n")
				return true
			}
		}
	}
	if sub, tp, ok := strings.Cut(name, ":"); ok && !strings.Contains(tp, ":") {
		if id, err := pmu.TracepointID(m.Sys, sub, tp); err == nil {
			fmt.Fprintf(w, "%s: kernel tracepoint (perf_event_attr.type 2, config %d); counts how often the kernel passed it.\n", name, id)
			return true
		}
	}
	return false
}

// RawCode reads r3, r0x3 (x86 configs are not codes and are not accepted) or 0x03.
func RawCode(s string) (uint64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case strings.HasPrefix(s, "0x"):
		v, err := strconv.ParseUint(s[2:], 16, 64)
		return v, err == nil
	case strings.HasPrefix(s, "r") && len(s) > 1:
		v, err := strconv.ParseUint(strings.TrimPrefix(s[1:], "0x"), 16, 64)
		return v, err == nil
	}
	return 0, false
}

// explainSuggestion is pmc stat's did-you-mean over perf's names and the tables' events;
// failing that, up to three table events whose names contain name ("refill").
func explainSuggestion(tables []*catalog.Table, name string) string {
	candidates := events.SymbolicNames()
	for _, t := range tables {
		for _, ev := range t.Events() {
			candidates = append(candidates, ev.Name)
		}
	}
	if s := events.DidYouMean(name, candidates); s != "" {
		return s
	}
	n := strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(name))
	var hits []string
	for _, c := range candidates {
		if len(hits) < 3 && strings.Contains(strings.ToLower(c), n) {
			hits = append(hits, c)
		}
	}
	if len(hits) == 0 {
		return ""
	}
	return " (did you mean: " + strings.Join(hits, ", ") + "?)"
}

func explainGeneric(w io.Writer, m *host.Machine, canon string) {
	t := m.Table
	g := m.Effective(canon)
	own, _ := t.MapGeneric(canon)
	kind := "generic hardware event (PERF_TYPE_HARDWARE)"
	if g.Kind == "cache" {
		kind = "generic cache event (PERF_TYPE_HW_CACHE)"
	}
	fmt.Fprintf(w, "%s on %s (%s): %s\n", canon, t.Name, t.Title, kind)
	if g.Supported {
		ev := g.Event
		fmt.Fprintf(w, "  The Linux driver counts it as raw event %s %s: %s (perf syntax %s).\n",
			ev.CodeString(t.Arch), ev.Name, ev.Brief, ev.PerfSyntax(t.Arch))
		for _, l := range wrap(ev.Description(), 86) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	} else {
		fmt.Fprintf(w, "  Not supported: the kernel returns ENOENT and perf prints <not supported>.\n")
	}
	if g.Caveat != "" {
		fmt.Fprintf(w, "  Caveats:\n")
		for _, c := range strings.Split(g.Caveat, "; ") {
			lines := wrap(c, 84)
			for i, l := range lines {
				prefix := "  - "
				if i > 0 {
					prefix = "    "
				}
				fmt.Fprintf(w, "  %s%s\n", prefix, l)
			}
		}
	}
	if m.Driver != nil && (own.Supported != g.Supported || own.Event != g.Event) {
		what := "not supported"
		if own.Supported {
			what = fmt.Sprintf("%s (%s)", own.Event.Name, own.Event.CodeString(t.Arch))
		}
		fmt.Fprintf(w, "  This kernel runs the PMU with the generic PMUv3 driver (%s); with the %s driver it would be: %s.\n", m.Core.Name, t.Name, what)
	}
	_, status := m.GenericStatus(g)
	countersLine(w, t)
	fmt.Fprintf(w, "  On this machine: %s.\n", onThisMachine(m, status))
	fmt.Fprintf(w, "  On other CPUs:\n")
	cat, _ := m.Catalog() // loaded already: m.Table came from it
	for _, name := range compareTables {
		o, ok := cat.ByName(name)
		if !ok || o == t {
			continue
		}
		og, _ := o.MapGeneric(canon)
		what := "not supported"
		if og.Supported {
			what = fmt.Sprintf("%s (%s)", og.Event.Name, og.Event.CodeString(o.Arch))
		}
		fmt.Fprintf(w, "    %-12s %s\n", o.Name, what)
	}
}

func explainEvent(w io.Writer, m *host.Machine, t *catalog.Table, ev catalog.Event) {
	fmt.Fprintf(w, "%s on %s (%s): raw event %s, perf syntax %s\n", ev.Name, t.Name, t.Title, ev.CodeString(t.Arch), ev.PerfSyntax(t.Arch))
	fmt.Fprintf(w, "  %s.\n", strings.TrimSuffix(ev.Brief, "."))
	if ev.Public != "" {
		for _, l := range wrap(ev.Public, 86) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if ev.ArchStd {
		fmt.Fprintf(w, "  Architectural event: the number is the same on every core of the architecture that implements it.\n")
	}
	var gens []string
	for _, n := range append(catalog.HardwareNames(), catalog.CacheNames()...) {
		if g, _ := t.MapGeneric(n); g.Supported && g.Event == ev {
			gens = append(gens, n)
		}
	}
	if len(gens) > 0 {
		fmt.Fprintf(w, "  Generic names counted with it on %s: %s.\n", t.Name, strings.Join(gens, ", "))
	}
	if t.Name != "extra" {
		_, status := m.HWStatus(true)
		countersLine(w, t)
		fmt.Fprintf(w, "  On this machine: %s.\n", onThisMachine(m, status))
	}
}

// countersLine says how many counters the table's CPU has, which decides how many events
// can be counted at once (seed 000's Cortex-A7: 4, seed 002's Cortex-A5: 2).
func countersLine(w io.Writer, t *catalog.Table) {
	if t.Counters != nil {
		fmt.Fprintf(w, "  Counters on %s: %s.\n", t.Name, t.Counters)
	}
}

// onThisMachine is the status for the "On this machine" line: a browsed table (--cpu) is
// not this machine's CPU, and the status says what the event is on that CPU.
func onThisMachine(m *host.Machine, status string) string {
	if m.Browsed {
		if status == "on "+m.Table.Name {
			status = "supported"
		}
		return fmt.Sprintf("not counted (--cpu %s is not this machine's CPU); on %s: %s", m.Table.Name, m.Table.Name, status)
	}
	return status
}

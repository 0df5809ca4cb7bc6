package host

import (
	"fmt"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/perfevent"
)

// HWStatus says whether a generic name (or, with supported=true, a table event reached
// through one) can be counted on this machine, and why not.
func (m *Machine) HWStatus(supported bool) (bool, string) {
	switch {
	case !supported && m.Driver != nil:
		return false, "not supported by the generic PMUv3 driver"
	case !supported:
		return false, "not supported on " + m.Table.Name
	case m.Browsed:
		return false, "on " + m.Table.Name
	case m.Core == nil:
		return false, "not available here: no cpu PMU in sysfs"
	case !m.Countable:
		return false, "not countable here: the table is not this CPU's"
	}
	return true, "countable"
}

// Effective is what the running kernel does with a generic name: the table's mapping, or
// the generic PMUv3 driver's when that driver runs the PMU.
func (m *Machine) Effective(canon string) catalog.Mapping {
	g, _ := m.Table.MapGeneric(canon)
	if m.Driver != nil {
		g, _ = m.Driver.MapGeneric(canon)
	}
	return g
}

// GenericStatus is HWStatus for a mapping, adding what the core PMU advertises: an Armv8
// kernel only uses a common event (below 0x40) of its generic map if PMCEID lists it.
func (m *Machine) GenericStatus(g catalog.Mapping) (bool, string) {
	ok, status := m.HWStatus(g.Supported)
	if ok && m.Table.Arch == "armv8" && m.Advertised != nil && g.Event.Code < 0x40 && !m.Advertised[g.Event.Code] {
		return false, fmt.Sprintf("not advertised by %s (PMCEID lacks 0x%02x)", m.Core.Name, g.Event.Code)
	}
	return ok, status
}

// TableStatus says whether the table's own events can be counted here as raw events.
func (m *Machine) TableStatus() (bool, string) {
	switch {
	case m.Countable:
		return true, "countable"
	case m.Browsed:
		return false, "on " + m.Table.Name
	}
	return false, "table (not countable here)"
}

// Label names what a generic hardware or cache event counts on this CPU, e.g.
// "cache-misses = r3 (L1D_CACHE_REFILL)", and a raw event by its name in the CPU's table,
// "r3 (L1D_CACHE_REFILL)"; other events keep the resolver's canonical form.
func (m *Machine) Label(ev events.Event) string {
	if m.Countable && ev.Attr.Type == perfevent.TypeRaw {
		if evs, _ := m.Table.ByConfig(ev.Attr.Config); len(evs) > 0 {
			return ev.Resolved + " (" + evs[0].Name + ")"
		}
		return ev.Resolved
	}
	if !m.Countable || (ev.Attr.Type != perfevent.TypeHardware && ev.Attr.Type != perfevent.TypeHWCache) {
		return ev.Resolved
	}
	canon, ok := catalog.CanonicalGeneric(ev.Resolved)
	if !ok {
		return ev.Resolved
	}
	g := m.Effective(canon)
	if supported, why := m.GenericStatus(g); !supported {
		return fmt.Sprintf("%s = %s", ev.Resolved, why)
	}
	return fmt.Sprintf("%s = %s (%s)", ev.Resolved, g.Event.PerfSyntax(m.Table.Arch), g.Event.Name)
}

// Resolve parses and resolves an event list on this machine: table event names (e.g.
// L1D_CACHE_REFILL) are accepted where the table is countable, and every generic hardware
// name is labelled with the raw event it becomes on this CPU (Event.Resolved).
func (m *Machine) Resolve(spec string, opts events.Options) ([]events.Group, error) {
	specs, err := events.Parse(spec)
	if err != nil {
		return nil, err
	}
	if m.Countable {
		opts.Tables = catalog.NewResolver(m.Table)
	}
	groups, err := events.Resolve(specs, m.PMUs, m.Sys, opts)
	if err != nil {
		return nil, err
	}
	for gi := range groups {
		for i := range groups[gi].Events {
			groups[gi].Events[i].Resolved = m.Label(groups[gi].Events[i])
		}
	}
	return groups, nil
}

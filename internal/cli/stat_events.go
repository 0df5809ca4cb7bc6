package cli

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing/fstest"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/stat"
)

// sysfs is the machine's /sys, as an fs.FS for the parsers.
var sysfs = os.DirFS("/sys")

// discover reads the PMUs of this machine, once per process; a machine without sysfs still
// counts the kernel's fixed event types, so failure yields an empty system, not an error.
var discover = sync.OnceValue(func() *pmu.System {
	sys, err := pmu.Discover(sysfs)
	if err != nil || sys == nil {
		return &pmu.System{PMUs: map[string]*pmu.PMU{}}
	}
	return sys
})

// eventHost is what event resolution knows of a machine: its PMUs, its sysfs (tracepoint
// ids) and its CPU's event table. The real one reads this machine; the fake backend uses an
// empty one, so that fake-backend output is the same on every host.
type eventHost struct {
	sys     *pmu.System
	sysFS   fs.FS
	machine *machine // nil: no CPU table
}

// realHost is this machine. Without a core PMU no table event can be counted and no generic
// name needs a label, so the CPU's table is not even loaded.
func realHost() *eventHost {
	h := &eventHost{sys: discover(), sysFS: sysfs}
	if h.sys.Core() != nil {
		h.machine, _ = loadMachine("")
	}
	return h
}

// emptyHost knows only the kernel's fixed event types (software, hardware, cache, raw).
func emptyHost() *eventHost {
	return &eventHost{sys: &pmu.System{PMUs: map[string]*pmu.PMU{}}, sysFS: fstest.MapFS{}}
}

// hostFor picks the host a `pmc stat` invocation resolves against.
func hostFor(f *statFlags) *eventHost {
	if f.fake != "" {
		return emptyHost()
	}
	return realHost()
}

// defaultEvents is perf stat's default list for this host.
func (h *eventHost) defaultEvents() string { return events.DefaultEventsFor(h.sys) }

// resolveEvents resolves spec on this machine (see eventHost.resolve).
func resolveEvents(spec string, mode stat.Mode, inherit bool) ([]stat.Event, error) {
	return realHost().resolve(spec, mode, inherit)
}

// resolve parses and resolves an event list for mode into the session's events. Event names
// from the CPU's table (e.g. L1D_CACHE_REFILL) are accepted, and every generic hardware name
// is labelled with the raw event it becomes on this CPU.
func (h *eventHost) resolve(spec string, mode stat.Mode, inherit bool) ([]stat.Event, error) {
	specs, err := events.Parse(spec)
	if err != nil {
		return nil, err
	}
	m := h.machine
	opts := events.Options{NoInherit: !inherit, EnableOnExec: mode == stat.Launch}
	if m != nil && m.countable {
		opts.Tables = catalog.NewResolver(m.table)
	}
	groups, err := events.Resolve(specs, h.sys, h.sysFS, opts)
	if err != nil {
		return nil, err
	}
	var out []stat.Event
	for gi, g := range groups {
		for i, ev := range g.Events {
			out = append(out, stat.Event{
				Name: ev.Name, Group: gi, Leader: i == 0 && len(g.Events) > 1,
				Attr: ev.Attr, PMU: ev.PMU, Resolved: m.label(ev), Unit: ev.Unit, Scale: unitScale(ev.Scale),
			})
		}
	}
	return out, nil
}

// label names what a generic hardware or cache event counts on this CPU, e.g.
// "cache-misses = r3 (L1D_CACHE_REFILL)"; other events keep the resolver's canonical form.
func (m *machine) label(ev events.Event) string {
	if m == nil || !m.countable || (ev.Attr.Type != perfevent.TypeHardware && ev.Attr.Type != perfevent.TypeHWCache) {
		return ev.Resolved
	}
	canon, ok := catalog.CanonicalGeneric(ev.Resolved)
	if !ok {
		return ev.Resolved
	}
	g := m.effective(canon)
	if supported, why := m.genericStatus(g); !supported {
		return fmt.Sprintf("%s = %s", ev.Resolved, why)
	}
	return fmt.Sprintf("%s = %s (%s)", ev.Resolved, g.Event.PerfSyntax(m.table.Arch), g.Event.Name)
}

// unitScale is a sysfs or clock scale, 0 when it changes nothing (omitted from JSON).
func unitScale(s float64) float64 {
	if s == 1 {
		return 0
	}
	return s
}

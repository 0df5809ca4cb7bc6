package cli

import (
	"os"

	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/stat"
)

// sysfs is the machine's /sys, as an fs.FS for the parsers.
var sysfs = os.DirFS("/sys")

// discover reads the PMUs of this machine; a machine without sysfs still counts the
// kernel's fixed event types, so failure yields an empty system rather than an error.
func discover() *pmu.System {
	sys, err := pmu.Discover(sysfs)
	if err != nil || sys == nil {
		return &pmu.System{PMUs: map[string]*pmu.PMU{}}
	}
	return sys
}

// defaultEvents is perf stat's default list for this machine.
func defaultEvents() string { return events.DefaultEventsFor(discover()) }

// resolveEvents parses and resolves an event list for mode into the session's events.
func resolveEvents(spec string, mode stat.Mode, inherit bool) ([]stat.Event, error) {
	specs, err := events.Parse(spec)
	if err != nil {
		return nil, err
	}
	groups, err := events.Resolve(specs, discover(), sysfs, events.Options{
		NoInherit:    !inherit,
		EnableOnExec: mode == stat.Launch,
	})
	if err != nil {
		return nil, err
	}
	var out []stat.Event
	for gi, g := range groups {
		for i, ev := range g.Events {
			out = append(out, stat.Event{
				Name: ev.Name, Group: gi, Leader: i == 0 && len(g.Events) > 1,
				Attr: ev.Attr, PMU: ev.PMU, Resolved: ev.Resolved, Unit: ev.Unit,
			})
		}
	}
	return out, nil
}

package cli

import (
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/stat"
)

// resolveOn parses and resolves an event list for mode on m into the session's events.
func resolveOn(m *host.Machine, spec string, mode stat.Mode, inherit bool) ([]stat.Event, error) {
	return resolveDelayed(m, spec, mode, inherit, false)
}

// resolveDelayed is resolveOn for -D: launched events are opened disabled without
// enable_on_exec, to be enabled after the delay.
func resolveDelayed(m *host.Machine, spec string, mode stat.Mode, inherit, delayed bool) ([]stat.Event, error) {
	groups, err := m.Resolve(spec, events.Options{NoInherit: !inherit, EnableOnExec: mode == stat.Launch && !delayed})
	if err != nil {
		return nil, err
	}
	var out []stat.Event
	for gi, g := range groups {
		for i, ev := range g.Events {
			out = append(out, stat.Event{
				Name: ev.Name, Group: gi, Leader: i == 0 && len(g.Events) > 1,
				Attr: ev.Attr, PMU: ev.PMU, Resolved: ev.Resolved, Unit: ev.Unit, Scale: unitScale(ev.Scale),
				Weak: g.Weak,
			})
		}
	}
	return out, nil
}

// unitScale is a sysfs or clock scale, 0 when it changes nothing (omitted from JSON).
func unitScale(s float64) float64 {
	if s == 1 {
		return 0
	}
	return s
}

package statrun

import (
	"fmt"
	"io"
	"strings"

	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/mem"
	"github.com/pmc-tools/pmc/internal/sim"
	"github.com/pmc-tools/pmc/internal/stat"
)

// ResolveOn parses and resolves an event list for mode on m into the session's events.
func ResolveOn(m *host.Machine, spec string, mode stat.Mode, inherit bool) ([]stat.Event, error) {
	return resolveDelayed(m, spec, mode, inherit, false)
}

// resolveDelayed is ResolveOn for -D: launched events are opened disabled without
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

// ChooseEvents decides what to count: the user's -e plus the groups of requested metrics
// whose operands -e lacks; the metrics' plan alone without -e; a default set per CPU family
// for --report without either; perf's default list otherwise.
func ChooseEvents(f *Flags, mode stat.Mode, p *MetricPlan) (string, error) {
	userSpec := strings.Join(f.Events, ",")
	var user []stat.Event
	if userSpec != "" {
		evs, err := ResolveOn(p.on, userSpec, mode, !f.NoInherit)
		if err != nil {
			return "", err
		}
		user = evs
	} else if len(p.Names) == 0 && f.Metric.Report != "" {
		if err := p.reportDefaults(); err != nil {
			return "", err
		}
	}
	// A misspelt event in a metric is reported in the metric, not in the planned -e list.
	err := p.Set.CheckEvents(p.Names, func(ev string) error {
		_, err := ResolveOn(p.on, ev, mode, !f.NoInherit)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("-M: %w", err)
	}
	spec, err := p.events(userSpec, user)
	if err != nil {
		return "", err
	}
	if p.userN = len(user); p.planned != "" {
		if evs, err := ResolveOn(p.on, p.planned, mode, !f.NoInherit); err == nil {
			p.plannedN = len(evs)
		}
	}
	if p.userN = len(user); p.planned != "" {
		if evs, err := ResolveOn(p.on, p.planned, mode, !f.NoInherit); err == nil {
			p.plannedN = len(evs)
		}
	}
	if spec == "" && !f.Null {
		spec = events.DefaultEventsFor(p.on.PMUs, mode == stat.System)
	}
	if d := events.Detailed(f.Detailed); d != "" {
		spec += "," + d // perf appends them to -e too
	}
	return spec, nil
}

// printPlan says, with -v or --dry-run, how the metrics' events were grouped.
func printPlan(w io.Writer, p *MetricPlan) {
	if p.planned == "" {
		return
	}
	fmt.Fprintf(w, "metrics %s planned for %s as: -e %s\n", strings.Join(p.Names, ","), p.facts.PMULine(), p.planned)
}

// printAttrs writes each event's perf_event_attr in pmc's stable text form (-v, --dry-run).
func printAttrs(w io.Writer, evs []stat.Event) {
	for _, ev := range evs {
		role := ""
		if ev.Leader {
			role = ", leader"
		}
		fmt.Fprintf(w, "event %q (group %d%s)", ev.Name, ev.Group, role)
		if ev.Resolved != "" {
			fmt.Fprintf(w, " resolves to %s", ev.Resolved)
		}
		fmt.Fprintf(w, "\n%s", ev.Attr.String())
	}
}

// SimDefaultEvents is what pmc stat --sim counts without -e: everything cachegrind simulates.
var SimDefaultEvents = "instructions,L1-dcache-loads,L1-dcache-load-misses,L1-dcache-stores,L1-dcache-store-misses," +
	"L1-icache-load-misses,LLC-loads,LLC-load-misses,LLC-store-misses,branches,branch-misses"

// SimBackend is the --sim backend: cachegrind with this machine's cache geometry from sysfs,
// overridden level by level with --sim-cache.
func SimBackend(m *host.Machine, f *Flags) (*sim.Cachegrind, error) {
	if f.Sim != "cachegrind" {
		return nil, fmt.Errorf("--sim %q: the simulator is cachegrind (--sim or --sim=cachegrind)", f.Sim)
	}
	var g sim.Geometry
	var notes []string
	if caches, err := mem.ReadCaches(m.Sys, 0); err == nil {
		for _, c := range caches {
			sc := sim.Cache{Size: int(c.SizeBytes), Assoc: c.Ways, Line: c.LineBytes}
			if sc.Size <= 0 || sc.Assoc <= 0 || sc.Line <= 0 {
				continue
			}
			var level *sim.Cache
			switch {
			case c.Level == 1 && c.Type == "Data":
				level = &g.D1
			case c.Level == 1 && c.Type == "Instruction":
				level = &g.I1
			case c.Level > 1 && c.Type == "Unified":
				level = &g.LL // the last one is the last level
			default:
				continue
			}
			s, ok := sc.Simulable()
			switch {
			case !ok:
				s = sim.Cache{}
				notes = append(notes, fmt.Sprintf("this CPU's L%d cache (%s) cannot be simulated as it is: cachegrind chose its own; set it with --sim-cache", c.Level, sc))
			case s != sc:
				notes = append(notes, fmt.Sprintf("this CPU's L%d cache (%s: size,ways,line) is simulated with %d ways (%s) for a power-of-two number of sets", c.Level, sc, s.Assoc, s))
			}
			*level = s
		}
	}
	g, err := sim.ParseGeometry(f.SimCache, g)
	if err != nil {
		return nil, err
	}
	return &sim.Cachegrind{Geometry: g, Notes: notes}, nil
}

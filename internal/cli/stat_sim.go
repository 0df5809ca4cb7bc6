package cli

import (
	"fmt"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/mem"
	"github.com/pmc-tools/pmc/internal/sim"
)

// simDefaultEvents is what pmc stat --sim counts without -e: everything cachegrind simulates.
var simDefaultEvents = "instructions,L1-dcache-loads,L1-dcache-load-misses,L1-dcache-stores,L1-dcache-store-misses," +
	"L1-icache-load-misses,LLC-loads,LLC-load-misses,LLC-store-misses,branches,branch-misses"

// simBackend is the --sim backend: cachegrind with this machine's cache geometry from sysfs,
// overridden level by level with --sim-cache.
func simBackend(m *host.Machine, f *statFlags) (*sim.Cachegrind, error) {
	if f.sim != "cachegrind" {
		return nil, fmt.Errorf("--sim %q: the simulator is cachegrind (--sim or --sim=cachegrind)", f.sim)
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
	g, err := sim.ParseGeometry(f.simCache, g)
	if err != nil {
		return nil, err
	}
	return &sim.Cachegrind{Geometry: g, Notes: notes}, nil
}

package cli

import (
	"fmt"

	"github.com/pmc-tools/pmc/internal/mem"
	"github.com/pmc-tools/pmc/internal/sim"
)

// simDefaultEvents is what pmc stat --sim counts without -e: everything cachegrind simulates.
var simDefaultEvents = "instructions,L1-dcache-loads,L1-dcache-load-misses,L1-dcache-stores,L1-dcache-store-misses," +
	"L1-icache-load-misses,LLC-loads,LLC-load-misses,LLC-store-misses,branches,branch-misses"

// simBackend is the --sim backend: cachegrind with this machine's cache geometry from sysfs,
// overridden level by level with --sim-cache.
func simBackend(f *statFlags) (*sim.Cachegrind, error) {
	if f.sim != "cachegrind" {
		return nil, fmt.Errorf("--sim %q: the simulator is cachegrind (--sim or --sim=cachegrind)", f.sim)
	}
	var g sim.Geometry
	if caches, err := mem.ReadCaches(machine().Sys, 0); err == nil {
		for _, c := range caches {
			sc := sim.Cache{Size: int(c.SizeBytes), Assoc: c.Ways, Line: c.LineBytes}
			if sc.Size <= 0 || sc.Assoc <= 0 || sc.Line <= 0 {
				continue
			}
			switch {
			case c.Level == 1 && c.Type == "Data":
				g.D1 = sc
			case c.Level == 1 && c.Type == "Instruction":
				g.I1 = sc
			case c.Level > 1 && c.Type == "Unified":
				g.LL = sc // the last one is the last level
			}
		}
	}
	g, err := sim.ParseGeometry(f.simCache, g)
	if err != nil {
		return nil, err
	}
	return &sim.Cachegrind{Geometry: g}, nil
}

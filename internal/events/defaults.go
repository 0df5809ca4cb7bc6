package events

import (
	"strings"

	"github.com/pmc-tools/pmc/internal/pmu"
)

// DefaultEvents is perf stat 6.1's default event list (no -e) for a workload on a machine
// whose cpu PMU has no stalled-cycles sysfs events: four software events, then cycles,
// instructions, branches and branch-misses.
func DefaultEvents() string { return DefaultEventsFor(nil, false) }

// DefaultEventsFor is perf stat 6.1's default list for sys: it adds stalled-cycles-frontend
// and -backend after cycles when the "cpu" PMU lists them in sysfs, as perf does, and counts
// cpu-clock instead of task-clock system-wide (-a), as perf does.
func DefaultEventsFor(sys *pmu.System, systemWide bool) string {
	clock := "task-clock"
	if systemWide {
		clock = "cpu-clock"
	}
	s := clock + ",context-switches,cpu-migrations,page-faults,cycles"
	if sys != nil {
		if p, ok := sys.PMUs["cpu"]; ok {
			for _, ev := range []string{"stalled-cycles-frontend", "stalled-cycles-backend"} {
				if _, ok := p.Events[ev]; ok {
					s += "," + ev
				}
			}
		}
	}
	return s + ",instructions,branches,branch-misses"
}

// Detailed is what perf stat's -d (level 1), -dd (2) and -ddd (3) add to the events: the
// L1 data cache and last-level cache, then the instruction cache and TLBs, then L1
// prefetches. Events the CPU cannot count are then <not supported>, as in perf.
func Detailed(level int) string {
	sets := []string{
		"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
		"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,iTLB-load-misses",
		"L1-dcache-prefetches,L1-dcache-prefetch-misses",
	}
	var out []string
	for i := 0; i < level && i < len(sets); i++ {
		out = append(out, sets[i])
	}
	return strings.Join(out, ",")
}

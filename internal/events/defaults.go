package events

import "github.com/pmc-tools/pmc/internal/pmu"

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

package stat

import "github.com/pmc-tools/pmc/internal/perfevent"

// A Holder keeps the kernel's set-up for the events of a series of runs in place between
// them. Measure uses it around repeats (-r, warm-ups), compare around all of its runs.
type Holder interface {
	Hold(events []Event) (release func())
}

// Hold opens, on pmc itself and disabled, one counter of each software event in events whose
// kernel hook is switched by a static key (page-faults, context-switches, cpu-migrations...;
// not task-clock or cpu-clock, which are PMUs of their own). The kernel enables the key when
// the first such counter opens and disables it when the last closes, both by patching its
// text on every CPU; without a held counter each run paid that twice per event, 22% of pmc
// compare -r 10's CPU time on two CPUs. A held counter counts nothing (it is never enabled).
// Counters the kernel refuses are skipped: holding is only a saving.
func (Kernel) Hold(events []Event) (release func()) {
	var held []*perfevent.Counter
	seen := map[uint64]bool{}
	for _, ev := range events {
		a := ev.Attr
		if a.Type != perfevent.TypeSoftware || seen[a.Config] || !keyedSoftware(a.Config) {
			continue
		}
		seen[a.Config] = true
		c, err := perfevent.Open("held "+ev.Name, perfevent.Attr{Type: perfevent.TypeSoftware, Config: a.Config,
			Disabled: true, ExcludeKernel: true, ExcludeHV: true}, 0, -1, nil)
		if err == nil {
			held = append(held, c)
		}
	}
	return func() {
		for _, c := range held {
			c.Close()
		}
	}
}

// keyedSoftware: the software events counted through the kernel's swevent hooks.
func keyedSoftware(config uint64) bool {
	switch config {
	case perfevent.SWPageFaults, perfevent.SWContextSwitches, perfevent.SWCPUMigrations,
		perfevent.SWPageFaultsMin, perfevent.SWPageFaultsMaj, perfevent.SWAlignmentFaults,
		perfevent.SWEmulationFaults, perfevent.SWCgroupSwitches:
		return true
	}
	return false
}

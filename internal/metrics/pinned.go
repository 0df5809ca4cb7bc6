package metrics

import (
	"fmt"
	"strings"
)

// ListEvent is one event of an event list (pmc stat -e) as CheckPinned sees it.
type ListEvent struct {
	Name   string
	Group  int      // events of one {..} group share it
	Enc    Encoding // as resolved (Canon is applied here)
	Pinned bool     // its group was opened pinned (perf's D modifier)
}

// CheckPinned reports an event list that cannot be counted as asked: pinned groups (the D
// modifier) stay on their counters for the whole run and are never multiplexed, so together
// they must fit the PMU at once. The kernel would otherwise put the ones that do not fit in an
// error state, and the run would end with counts missing. Software events take no counter;
// the dedicated cycle counter and fixed counters each hold one event. A machine whose
// counters are not known (Counters 0) is not checked.
func (m Machine) CheckPinned(evs []ListEvent) error {
	if m.Counters == 0 {
		return nil
	}
	need := 0
	var names []string
	var fixedUsed []Encoding
	cycleUsed := false
	for _, e := range evs {
		if !e.Pinned {
			continue
		}
		o := operand{name: e.Name, enc: m.canon(e.Enc), software: e.Enc.Type == softwareType}
		o.cycles, o.fixed = member(m.Cycles, o.enc), member(m.Fixed, o.enc)
		switch {
		case o.software:
			continue
		case m.CycleCounter && o.cycles && !cycleUsed:
			cycleUsed = true
		case o.fixed && !member(fixedUsed, o.enc):
			fixedUsed = append(fixedUsed, o.enc)
		default:
			need++
		}
		names = append(names, e.Name)
	}
	if need <= m.Counters {
		return nil
	}
	extra := ""
	if m.CycleCounter {
		extra = " and the cycle counter"
	}
	return fmt.Errorf("the pinned events (%s) need %d general counters at once; the PMU has %d%s: "+
		"a pinned event is never multiplexed, so they cannot all be counted; drop the D modifier from some "+
		"(they are then multiplexed) or count them in separate runs", strings.Join(names, ","), need, m.Counters, extra)
}

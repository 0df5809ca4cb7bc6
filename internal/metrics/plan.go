package metrics

import (
	"fmt"
	"sort"
	"strings"
)

// Machine describes the counters of one CPU type.
type Machine struct {
	Counters     int      // general-purpose counters (Cortex-A7: 4, Cortex-A57: 6, ARM1176: 2)
	CycleCounter bool     // a dedicated cycle counter takes cycles off the general ones
	Fixed        []string // other events with a counter of their own (x86: "instructions", "ref-cycles")
	Arch         string   // recognises raw cycle and instruction codes; see Arch
}

// free reports whether the event costs no general counter.
func (m Machine) free(ev string) bool {
	if !NeedsCounter(ev) {
		return true
	}
	if m.CycleCounter && IsCycles(ev, m.Arch) {
		return true
	}
	return contains(m.Fixed, baseName(ev))
}

// cost is the number of general counters a set of events needs at once.
func (m Machine) cost(events []string) int {
	n := 0
	for _, e := range events {
		if !m.free(e) {
			n++
		}
	}
	return n
}

// isBase reports whether ev is a base event that every group should carry when it fits:
// cycles and instructions, in their generic or raw spelling.
func isBase(ev, arch string) bool {
	if IsCycles(ev, arch) {
		return true
	}
	b := strings.ToLower(baseName(ev))
	switch {
	case b == "instructions":
		return true
	case arch == ArchARM1176:
		return b == "r07"
	case arch == ArchARMv7 || arch == ArchARMv8:
		return b == "r08"
	}
	return false
}

// EventGroup is one perf event group of a Plan.
type EventGroup struct {
	Events  []string // leader first: cycles when present, then instructions
	Metrics []string // the requested metrics whose operands all sit in this group
}

// String is the group in perf's -e syntax: "{cycles,instructions,branches,branch-misses}".
func (g EventGroup) String() string {
	if len(g.Events) == 1 {
		return g.Events[0]
	}
	return "{" + strings.Join(g.Events, ",") + "}"
}

// Unschedulable is a metric whose operands can never be counted at the same time.
type Unschedulable struct {
	Metric string
	Events []string // its events that need general counters
	Need   int      // general counters it needs at once
	Have   int      // general counters the machine has
}

func (u Unschedulable) String() string {
	return fmt.Sprintf("%s needs %d counter%s at once (%s), the CPU has %d", u.Metric, u.Need,
		plural(u.Need), strings.Join(u.Events, ","), u.Have)
}

// Plan says how to count the events of a set of metrics.
type Plan struct {
	Groups        []EventGroup    // each fits the counters; metric operands never straddle groups
	Software      []string        // software events, counted outside groups (no PMU counter)
	Unschedulable []Unschedulable // metrics left out of Groups
}

// Events is the plan as one perf -e argument: groups, then software events. Tool events
// (duration_time, user_time, system_time) are left out: Compute takes them from the Result.
func (p Plan) Events() string {
	var parts []string
	for _, g := range p.Groups {
		parts = append(parts, g.String())
	}
	return strings.Join(append(parts, p.Software...), ",")
}

// NewPlan packs the events of the named metrics into groups that fit m. Metrics sharing an
// event other than cycles or instructions are kept in one group when they fit together;
// otherwise each metric gets a group that holds all its operands. Groups are merged while
// they fit, and cycles and instructions are then added to every group with room.
func NewPlan(set *Set, names []string, m Machine) (Plan, error) {
	var plan Plan
	type item struct {
		metrics []string
		events  []string
	}
	var items []item
	var order []string // hardware events in order of first appearance, for stable output
	byMetric := map[string][]string{}
	var uniq []string
	for _, name := range names {
		if !contains(uniq, name) {
			uniq = append(uniq, name)
		}
	}
	names = uniq
	for _, name := range names {
		if _, ok := set.Def(name); !ok {
			return Plan{}, &Error{Msg: fmt.Sprintf("no metric %q", name), Err: ErrUnknownName}
		}
		var hw []string
		for _, ev := range set.Events(name) {
			switch {
			case !NeedsCounter(ev):
				if !isToolEvent(ev) && !contains(plan.Software, ev) {
					plan.Software = append(plan.Software, ev)
				}
			default:
				hw = append(hw, ev)
			}
		}
		if need := m.cost(hw); need > m.Counters {
			var gen []string
			for _, ev := range hw {
				if !m.free(ev) {
					gen = append(gen, ev)
				}
			}
			plan.Unschedulable = append(plan.Unschedulable, Unschedulable{Metric: name, Events: gen, Need: need, Have: m.Counters})
			continue
		}
		if len(hw) == 0 {
			continue
		}
		for _, ev := range hw {
			if !contains(order, ev) {
				order = append(order, ev)
			}
		}
		byMetric[name] = hw
		items = append(items, item{metrics: []string{name}, events: hw})
	}

	// Join metrics that share a non-base event into one item when the union still fits.
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(items) && !merged; i++ {
			for j := i + 1; j < len(items) && !merged; j++ {
				if !sharesNonBase(items[i].events, items[j].events, m.Arch) {
					continue
				}
				u := union(items[i].events, items[j].events)
				if m.cost(u) > m.Counters {
					continue
				}
				items[i] = item{metrics: append(items[i].metrics, items[j].metrics...), events: u}
				items = append(items[:j], items[j+1:]...)
				merged = true
			}
		}
	}

	// First fit decreasing, preferring the group that already holds most of the events.
	sort.SliceStable(items, func(i, j int) bool { return m.cost(items[i].events) > m.cost(items[j].events) })
	var bins []item
	for _, it := range items {
		best, bestOverlap := -1, -1
		for b := range bins {
			u := union(bins[b].events, it.events)
			if m.cost(u) > m.Counters {
				continue
			}
			if ov := len(bins[b].events) + len(it.events) - len(u); ov > bestOverlap {
				best, bestOverlap = b, ov
			}
		}
		if best < 0 {
			bins = append(bins, item{metrics: append([]string{}, it.metrics...), events: append([]string{}, it.events...)})
			continue
		}
		bins[best].events = union(bins[best].events, it.events)
		bins[best].metrics = append(bins[best].metrics, it.metrics...)
	}

	// Carry the base events (cycles, instructions) in every group that has room.
	var base []string
	for _, ev := range order {
		if isBase(ev, m.Arch) {
			base = append(base, ev)
		}
	}
	sort.SliceStable(base, func(i, j int) bool { return IsCycles(base[i], m.Arch) && !IsCycles(base[j], m.Arch) })
	for b := range bins {
		for _, ev := range base {
			if u := union(bins[b].events, []string{ev}); m.cost(u) <= m.Counters {
				bins[b].events = u
			}
		}
	}

	for _, b := range bins {
		g := EventGroup{Events: leaderFirst(b.events, order, m.Arch)}
		for _, name := range names {
			if hw, ok := byMetric[name]; ok && subset(hw, g.Events) && contains(b.metrics, name) {
				g.Metrics = append(g.Metrics, name)
			}
		}
		plan.Groups = append(plan.Groups, g)
	}
	return plan, nil
}

// leaderFirst orders a group's events: cycles, then instructions, then the rest in the order
// the metrics asked for them.
func leaderFirst(events, order []string, arch string) []string {
	rank := func(ev string) int {
		switch {
		case IsCycles(ev, arch):
			return 0
		case isBase(ev, arch):
			return 1
		}
		return 2
	}
	out := append([]string{}, events...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return index(order, out[i]) < index(order, out[j])
	})
	return out
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

func sharesNonBase(a, b []string, arch string) bool {
	for _, ev := range a {
		if !isBase(ev, arch) && contains(b, ev) {
			return true
		}
	}
	return false
}

func union(a, b []string) []string {
	out := append([]string{}, a...)
	for _, ev := range b {
		if !contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out
}

func subset(a, b []string) bool {
	for _, ev := range a {
		if !contains(b, ev) {
			return false
		}
	}
	return true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

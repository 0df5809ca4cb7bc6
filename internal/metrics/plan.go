package metrics

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Encoding is a resolved event as the planner sees it: the perf_event_attr fields that say
// which counter it is. Mods holds the privilege filter ("u", "k", "uk"...), so cycles:u and
// cycles are two counters.
type Encoding struct {
	Type    uint32
	Config  uint64
	Config1 uint64
	Config2 uint64
	Mods    string
}

// Resolver resolves a metric operand (an event as written in an expression) on the machine.
// Tool events (duration_time...) are never passed: they are not counters.
type Resolver func(event string) (Encoding, error)

// Machine describes the counters of one CPU, as the planner needs them. The planner decides
// what an event costs from its encoding, never from its spelling: "instructions",
// "INST_RETIRED", "r08" and "armv8_pmuv3_0/inst_retired/" are one counter on an Armv8 core.
type Machine struct {
	Counters     int  // general-purpose counters (Cortex-A7: 4, Cortex-A57: 6, ARM1176: 2)
	CycleCounter bool // a dedicated cycle counter takes cycles off the general ones
	// Cycles and Instructions are the encodings (after Canon, Mods ignored) that count core
	// cycles and retired instructions here: the generic ones and the core PMU's codes.
	Cycles       []Encoding
	Instructions []Encoding
	// Fixed are encodings with a counter of their own (x86: instructions, ref-cycles).
	Fixed []Encoding
	// Canon maps an encoding to the counter the kernel really programs (a generic event to
	// the CPU's raw event, PERF_TYPE_RAW to the core PMU's type); nil keeps it as it is.
	Canon func(Encoding) Encoding
}

func (m Machine) canon(e Encoding) Encoding {
	if m.Canon == nil {
		return e
	}
	return m.Canon(e)
}

func sameCounter(a, b Encoding) bool {
	return a.Type == b.Type && a.Config == b.Config && a.Config1 == b.Config1 && a.Config2 == b.Config2
}

func member(list []Encoding, e Encoding) bool {
	for _, x := range list {
		if sameCounter(x, e) {
			return true
		}
	}
	return false
}

// operand is one event of a plan with what its encoding says.
type operand struct {
	name     string   // the spelling of the first metric that asked for it
	enc      Encoding // canonical
	software bool     // counted by the kernel without a PMU counter
	cycles   bool
	instr    bool
	fixed    bool
}

// free reports whether the operand costs no general counter.
func (m Machine) free(o operand) bool {
	return o.software || o.fixed || (m.CycleCounter && o.cycles)
}

// cost is the number of general counters a set of operands needs at once.
func (m Machine) cost(ops []operand) int {
	n := 0
	for _, o := range ops {
		if !m.free(o) {
			n++
		}
	}
	return n
}

// describe resolves an operand and classifies its encoding.
func (m Machine) describe(name string, resolve Resolver) (operand, error) {
	e, err := resolve(name)
	if err != nil {
		return operand{}, err
	}
	c := m.canon(e)
	o := operand{name: name, enc: c, software: e.Type == softwareType}
	o.cycles = member(m.Cycles, c)
	o.instr = member(m.Instructions, c)
	o.fixed = member(m.Fixed, c)
	return o, nil
}

// softwareType is PERF_TYPE_SOFTWARE: such events take no PMU counter.
const softwareType = 1

// isBase: cycles and instructions ride along in every group that has room.
func (o operand) isBase() bool { return o.cycles || o.instr }

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
	// Pinned are events counted on their own counter for the whole run: cycles on a CPU with
	// a dedicated cycle counter, as rpistat keeps it on, once, written "cycles:D".
	Pinned        []string
	Groups        []EventGroup    // each fits the counters; metric operands never straddle groups
	Software      []string        // software events, counted outside groups (no PMU counter)
	Unschedulable []Unschedulable // metrics left out of Groups
}

// Events is the plan as one perf -e argument: groups, then software events. Tool events
// (duration_time, user_time, system_time) are left out: Compute takes them from the result.
func (p Plan) Events() string {
	parts := append([]string{}, p.Pinned...)
	for _, g := range p.Groups {
		parts = append(parts, g.String())
	}
	return strings.Join(append(parts, p.Software...), ",")
}

// NewPlan packs the events of the named metrics into groups that fit m, each operand
// resolved with resolve. Metrics sharing an event other than cycles or instructions are kept
// in one group when they fit together; otherwise each metric gets a group that holds all its
// operands. Groups are merged while they fit, and cycles and instructions are then added to
// every group with room. Operands that are one counter (same canonical encoding) are planned
// once, under the spelling first asked for.
func NewPlan(set *Set, names []string, m Machine, resolve Resolver) (Plan, error) {
	var plan Plan
	type item struct {
		metrics []string
		ops     []operand
	}
	var items []item
	var order []operand  // hardware operands in order of first appearance, for stable output
	var pinned []operand // counted on their own for the whole run
	byMetric := map[string][]operand{}
	var uniq []string
	for _, name := range names {
		if !slices.Contains(uniq, name) {
			uniq = append(uniq, name)
		}
	}
	names = uniq
	known := func(o operand) operand { // the operand as first planned, if it is one already
		for _, x := range order {
			if x.enc == o.enc {
				return x
			}
		}
		order = append(order, o)
		return o
	}
	for _, name := range names {
		if _, ok := set.Def(name); !ok {
			return Plan{}, &Error{Msg: fmt.Sprintf("no metric %q", name), Err: ErrUnknownName}
		}
		var hw []operand
		for _, ev := range set.Events(name) {
			if isToolEvent(ev) {
				continue
			}
			o, err := m.describe(ev, resolve)
			if err != nil {
				return Plan{}, &Error{Metric: name, Msg: fmt.Sprintf("event %q: %v", ev, err), Err: ErrUnknownName}
			}
			if o.software {
				if !slices.Contains(plan.Software, ev) {
					plan.Software = append(plan.Software, ev)
				}
				continue
			}
			if o = known(o); !hasOperand(hw, o) {
				hw = append(hw, o)
			}
		}
		if need := m.cost(hw); need > m.Counters {
			var gen []string
			for _, o := range hw {
				if !m.free(o) {
					gen = append(gen, o.name)
				}
			}
			plan.Unschedulable = append(plan.Unschedulable, Unschedulable{Metric: name, Events: gen, Need: need, Have: m.Counters})
			continue
		}
		if len(hw) == 0 {
			continue
		}
		byMetric[name] = hw
		items = append(items, item{metrics: []string{name}, ops: hw})
	}

	// Join metrics that share a non-base event into one item when the union still fits.
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(items) && !merged; i++ {
			for j := i + 1; j < len(items) && !merged; j++ {
				if !sharesNonBase(items[i].ops, items[j].ops) {
					continue
				}
				u := union(items[i].ops, items[j].ops)
				if m.cost(u) > m.Counters {
					continue
				}
				items[i] = item{metrics: append(items[i].metrics, items[j].metrics...), ops: u}
				items = append(items[:j], items[j+1:]...)
				merged = true
			}
		}
	}

	// First fit decreasing, preferring the group that already holds most of the events.
	sort.SliceStable(items, func(i, j int) bool { return m.cost(items[i].ops) > m.cost(items[j].ops) })
	var bins []item
	for _, it := range items {
		best, bestOverlap := -1, -1
		for b := range bins {
			u := union(bins[b].ops, it.ops)
			if m.cost(u) > m.Counters {
				continue
			}
			if ov := len(bins[b].ops) + len(it.ops) - len(u); ov > bestOverlap {
				best, bestOverlap = b, ov
			}
		}
		if best < 0 {
			bins = append(bins, item{metrics: append([]string{}, it.metrics...), ops: append([]operand{}, it.ops...)})
			continue
		}
		bins[best].ops = union(bins[best].ops, it.ops)
		bins[best].metrics = append(bins[best].metrics, it.metrics...)
	}

	// Where the CPU has a dedicated cycle counter, cycles is counted once, pinned there for
	// the whole run (rpistat's design), and every metric takes its cycles from that count.
	// Otherwise cycles rides along in the groups like instructions.
	if m.CycleCounter {
		for _, o := range order {
			if o.cycles && !hasPinned(pinned, o) {
				pinned = append(pinned, o)
				plan.Pinned = append(plan.Pinned, pinnedSpelling(o.name))
			}
		}
		for b := range bins {
			bins[b].ops = withoutCycles(bins[b].ops)
		}
	}
	// Carry the base events (instructions, and cycles without a cycle counter) in every
	// group that has room.
	var base []operand
	for _, o := range order {
		if o.isBase() && !(m.CycleCounter && o.cycles) {
			base = append(base, o)
		}
	}
	sort.SliceStable(base, func(i, j int) bool { return base[i].cycles && !base[j].cycles })
	for b := range bins {
		for _, o := range base {
			if u := union(bins[b].ops, []operand{o}); m.cost(u) <= m.Counters {
				bins[b].ops = u
			}
		}
	}

	for _, b := range bins {
		ops := leaderFirst(b.ops, order)
		g := EventGroup{}
		for _, o := range ops {
			g.Events = append(g.Events, o.name)
		}
		if len(g.Events) == 0 {
			continue // its only counter event is pinned (ghz: cycles / task-clock): no "{}"
		}
		for _, name := range names {
			if hw, ok := byMetric[name]; ok && subset(withoutPinned(hw, pinned), ops) && slices.Contains(b.metrics, name) {
				g.Metrics = append(g.Metrics, name)
			}
		}
		plan.Groups = append(plan.Groups, g)
	}
	return plan, nil
}

// leaderFirst orders a group's events: cycles, then instructions, then the rest in the order
// the metrics asked for them.
func leaderFirst(ops, order []operand) []operand {
	rank := func(o operand) int {
		switch {
		case o.cycles:
			return 0
		case o.isBase():
			return 1
		}
		return 2
	}
	out := append([]operand{}, ops...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return indexOf(order, out[i]) < indexOf(order, out[j])
	})
	return out
}

func indexOf(order []operand, o operand) int {
	for i, x := range order {
		if x.enc == o.enc {
			return i
		}
	}
	return len(order)
}

func hasOperand(ops []operand, o operand) bool { return indexOf(ops, o) < len(ops) }

// hasPinned reports whether o is one of the pinned operands.
func hasPinned(pinned []operand, o operand) bool { return hasOperand(pinned, o) }

// withoutCycles drops the cycles operands (counted pinned instead).
func withoutCycles(ops []operand) []operand {
	var out []operand
	for _, o := range ops {
		if !o.cycles {
			out = append(out, o)
		}
	}
	return out
}

// withoutPinned drops the pinned operands from a metric's list.
func withoutPinned(ops, pinned []operand) []operand {
	var out []operand
	for _, o := range ops {
		if !hasOperand(pinned, o) {
			out = append(out, o)
		}
	}
	return out
}

// pinnedSpelling adds perf's pinned modifier D to an event as written.
func pinnedSpelling(name string) string {
	if strings.HasSuffix(name, "/") || !strings.Contains(name, ":") {
		return name + ":D"
	}
	return name + "D" // cycles:u -> cycles:uD
}

// UnpinnedSpelling is the event as a user writes it, without the pinned modifier the
// planner added (pinnedSpelling): "cycles:D" -> "cycles", "cycles:uD" -> "cycles:u". ok is
// false when name has no such modifier.
func UnpinnedSpelling(name string) (string, bool) {
	i := strings.LastIndexByte(name, ':')
	if i < 0 || !strings.HasSuffix(name, "D") || strings.HasSuffix(name, "/") {
		return name, false
	}
	if name[i+1:] == "D" {
		return name[:i], true
	}
	return name[:len(name)-1], true
}

func sharesNonBase(a, b []operand) bool {
	for _, o := range a {
		if !o.isBase() && hasOperand(b, o) {
			return true
		}
	}
	return false
}

func union(a, b []operand) []operand {
	out := append([]operand{}, a...)
	for _, o := range b {
		if !hasOperand(out, o) {
			out = append(out, o)
		}
	}
	return out
}

func subset(a, b []operand) bool {
	for _, o := range a {
		if !hasOperand(b, o) {
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

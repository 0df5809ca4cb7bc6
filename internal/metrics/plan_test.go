package metrics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/events"
)

// testCPU is the planner's view of a CPU in these tests, built the way the machine model
// builds it from the catalog: generic events named in codes are the core PMU's raw events
// (type coreType), PERF_TYPE_RAW events are core PMU events, cycles and instructions are
// known by their codes. resolve reads names as package events does (symbols, rNN, ":mods").
type testCPU struct {
	counters int
	cycle    bool
	codes    map[string]uint64 // generic name -> raw code on this CPU
	fixed    []string          // generic names with a counter of their own
}

const testCoreType = 8

func (c testCPU) machine() Machine {
	m := Machine{Counters: c.counters, CycleCounter: c.cycle}
	m.Cycles = []Encoding{{Type: 0, Config: 0}}
	m.Instructions = []Encoding{{Type: 0, Config: 1}}
	if code, ok := c.codes["cycles"]; ok {
		m.Cycles = append(m.Cycles, Encoding{Type: testCoreType, Config: code})
	}
	if code, ok := c.codes["instructions"]; ok {
		m.Instructions = append(m.Instructions, Encoding{Type: testCoreType, Config: code})
	}
	for _, f := range c.fixed {
		e, _ := resolveTest(f)
		m.Fixed = append(m.Fixed, e)
	}
	m.Canon = func(e Encoding) Encoding {
		if e.Type == 4 {
			e.Type = testCoreType
		}
		for name, code := range c.codes {
			if g, _ := resolveTest(name); g.Type == e.Type && g.Config == e.Config {
				return Encoding{Type: testCoreType, Config: code, Mods: e.Mods}
			}
		}
		return e
	}
	return m
}

func resolveTest(name string) (Encoding, error) {
	base, mods, _ := strings.Cut(name, ":")
	if s, ok := events.LookupSymbol(base); ok {
		return Encoding{Type: s.Type, Config: s.Config, Mods: mods}, nil
	}
	if len(base) > 1 && base[0] == 'r' {
		v, err := strconv.ParseUint(base[1:], 16, 64)
		return Encoding{Type: 4, Config: v, Mods: mods}, err
	}
	return Encoding{}, fmt.Errorf("unknown event %q", name)
}

func planOf(t *testing.T, s *Set, c testCPU, names ...string) Plan {
	t.Helper()
	sel, err := s.Select(names...)
	if err != nil {
		t.Fatal(err)
	}
	m := c.machine()
	p, err := NewPlan(s, sel, m, resolveTest)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(names []string) int {
		var ops []operand
		for _, n := range names {
			o, err := m.describe(n, resolveTest)
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, o)
		}
		return m.cost(ops)
	}
	// Invariants: every group fits; every scheduled metric has all its operands in one group.
	for _, g := range p.Groups {
		if c := cost(g.Events); c > m.Counters {
			t.Errorf("group %s needs %d counters, machine has %d", g, c, m.Counters)
		}
		for _, name := range g.Metrics {
			for _, ev := range s.Events(name) {
				if NeedsCounter(ev) && !slices.Contains(g.Events, ev) && !slices.Contains(p.Pinned, pinnedSpelling(ev)) {
					t.Errorf("metric %s listed in %s but its event %s is not", name, g, ev)
				}
			}
		}
	}
	for _, name := range sel {
		placed := false
		for _, g := range p.Groups {
			placed = placed || slices.Contains(g.Metrics, name)
		}
		for _, u := range p.Unschedulable {
			placed = placed || u.Metric == name
		}
		hw := false
		for _, ev := range s.Events(name) {
			hw = hw || NeedsCounter(ev) && !slices.Contains(p.Pinned, ev+":D") // pinned: counted, in no group
		}
		if hw && !placed {
			t.Errorf("metric %s is in no group and not reported unschedulable", name)
		}
	}
	return p
}

func TestPlanCortexA7(t *testing.T) {
	// 4 general counters + the cycle counter: the cache and branch pairs do not fit together;
	// cycles is counted once, pinned on its own counter, as rpistat does.
	a7 := testCPU{counters: 4, cycle: true, codes: map[string]uint64{"cycles": 0xff, "instructions": 0x08}}
	p := planOf(t, Builtin(ArchARMv7), a7, "ipc", "l1d_miss_ratio", "l1d_mpki", "branch_miss_ratio", "branch_mpki")
	want := "cycles:D,{instructions,L1-dcache-load-misses,L1-dcache-loads},{instructions,branch-misses,branches}"
	if got := p.Events(); got != want {
		t.Errorf("A7 plan\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(p.Groups[0].Metrics, ","); got != "ipc,l1d_miss_ratio,l1d_mpki" {
		t.Errorf("group 0 metrics = %s", got)
	}
	if len(p.Unschedulable) != 0 {
		t.Errorf("unschedulable: %v", p.Unschedulable)
	}
	// ghz's only counter event is the pinned cycles: no group is left for it, not an empty one.
	if got := planOf(t, Builtin(ArchARMv7), a7, "ghz").Events(); got != "cycles:D,task-clock" {
		t.Errorf("ghz plan: %s, want cycles:D,task-clock", got)
	}
}

func TestPlanCortexA57(t *testing.T) {
	// 6 general counters: the same request fits one group.
	a57 := testCPU{counters: 6, cycle: true, codes: map[string]uint64{"cycles": 0x11, "instructions": 0x08}}
	s := Builtin(ArchARMv8)
	p := planOf(t, s, a57, "ipc", "l1d_miss_ratio", "l1d_mpki", "branch_miss_ratio", "branch_mpki")
	want := "cycles:D,{instructions,L1-dcache-load-misses,L1-dcache-loads,branch-misses,branches}"
	if got := p.Events(); got != want {
		t.Errorf("A57 plan\n got %s\nwant %s", got, want)
	}
	// All of cache, tlb, branch and stall: 16 general events split into groups of at most 6
	// that each carry cycles and instructions.
	p = planOf(t, s, a57, "cache", "tlb", "branch", "stall", "default")
	// (dtlb_miss_ratio, the seed's generic formula, keeps dTLB-load-misses with
	// cache-references.)
	want = "cycles:D,{instructions,L1-dcache-load-misses,L1-dcache-loads,cache-misses,cache-references,dTLB-load-misses}," +
		"{instructions,L1-icache-load-misses,LLC-load-misses,LLC-loads,branch-misses,branches}," +
		"{instructions,r03,r04,r17,r16,iTLB-load-misses}," +
		"{instructions,stalled-cycles-frontend,stalled-cycles-backend}," +
		"task-clock,context-switches,cpu-migrations,page-faults"
	if got := p.Events(); got != want {
		t.Errorf("A57 full plan\n got %s\nwant %s", got, want)
	}
}

func TestPlanARM1176(t *testing.T) {
	// 2 general counters + the cycle counter, rpistat's metrics with raw codes. Every ratio
	// and rate gets its operands in one group; rpistat itself paired them differently and
	// computed PTI rates across event sets.
	arm11 := testCPU{counters: 2, cycle: true, codes: map[string]uint64{"cycles": 0xff, "instructions": 0x07}}
	s, err := Builtin(ArchARM1176).Merge(Def{Name: "dc_miss_per_branch_pti", Expr: "1000 * r0B / r05 / r07"})
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, s, arm11, "rpistat", "dc_miss_per_branch_pti")
	want := "cycles:D,{r0B,r09},{r07,r04},{r06,r05},{r07,r05},{r07,r0F},{r07,r01}"
	if got := p.Events(); got != want {
		t.Errorf("ARM1176 plan\n got %s\nwant %s", got, want)
	}
	if len(p.Unschedulable) != 1 || p.Unschedulable[0].String() != "dc_miss_per_branch_pti needs 3 counters at once (r0B,r05,r07), the CPU has 2" {
		t.Errorf("unschedulable = %v", p.Unschedulable)
	}
	// Without a dedicated cycle counter, CPI alone needs both counters.
	p = planOf(t, s, testCPU{counters: 2, codes: arm11.codes}, "cpi", "ibuf_stall_pct")
	if got := p.Events(); got != "{cycles,r07},{cycles,r01}" {
		t.Errorf("no cycle counter: %s", got)
	}
}

func TestPlanX86Fixed(t *testing.T) {
	// x86: cycles and instructions on fixed counters; 4 general counters take the rest.
	x86 := testCPU{counters: 4, cycle: true, fixed: []string{"instructions"}}
	p := planOf(t, Builtin(ArchX86), x86, "default", "l1d_miss_ratio", "llc_miss_ratio")
	want := "cycles:D,{instructions,branch-misses,branches,L1-dcache-load-misses,L1-dcache-loads},{instructions,LLC-load-misses,LLC-loads}," +
		"task-clock,context-switches,cpu-migrations,page-faults"
	if got := p.Events(); got != want {
		t.Errorf("x86 plan\n got %s\nwant %s", got, want)
	}
}

func TestPlanUnknownMetric(t *testing.T) {
	if _, err := NewPlan(Builtin(""), []string{"nosuch"}, Machine{Counters: 4}, resolveTest); err == nil {
		t.Error("unknown metric planned")
	}
}

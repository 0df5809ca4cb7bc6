package metrics

import (
	"strings"
	"testing"
)

func planOf(t *testing.T, s *Set, m Machine, names ...string) Plan {
	t.Helper()
	sel, err := s.Select(names...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(s, sel, m)
	if err != nil {
		t.Fatal(err)
	}
	// Invariants: every group fits; every scheduled metric has all its operands in one group.
	for _, g := range p.Groups {
		if c := m.cost(g.Events); c > m.Counters {
			t.Errorf("group %s needs %d counters, machine has %d", g, c, m.Counters)
		}
		for _, name := range g.Metrics {
			for _, ev := range s.Events(name) {
				if NeedsCounter(ev) && !contains(g.Events, ev) {
					t.Errorf("metric %s listed in %s but its event %s is not", name, g, ev)
				}
			}
		}
	}
	for _, name := range sel {
		placed := false
		for _, g := range p.Groups {
			placed = placed || contains(g.Metrics, name)
		}
		for _, u := range p.Unschedulable {
			placed = placed || u.Metric == name
		}
		hw := false
		for _, ev := range s.Events(name) {
			hw = hw || NeedsCounter(ev)
		}
		if hw && !placed {
			t.Errorf("metric %s is in no group and not reported unschedulable", name)
		}
	}
	return p
}

func TestPlanCortexA7(t *testing.T) {
	// 4 general counters + the cycle counter: the cache and branch pairs do not fit together.
	a7 := Machine{Counters: 4, CycleCounter: true, Arch: ArchARMv7}
	p := planOf(t, Builtin(ArchARMv7), a7, "ipc", "l1d_miss_ratio", "l1d_mpki", "branch_miss_ratio", "branch_mpki")
	want := "{cycles,instructions,L1-dcache-load-misses,L1-dcache-loads},{cycles,instructions,branch-misses,branches}"
	if got := p.Events(); got != want {
		t.Errorf("A7 plan\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(p.Groups[0].Metrics, ","); got != "ipc,l1d_miss_ratio,l1d_mpki" {
		t.Errorf("group 0 metrics = %s", got)
	}
	if len(p.Unschedulable) != 0 {
		t.Errorf("unschedulable: %v", p.Unschedulable)
	}
}

func TestPlanCortexA57(t *testing.T) {
	// 6 general counters: the same request fits one group.
	a57 := Machine{Counters: 6, CycleCounter: true, Arch: ArchARMv8}
	s := Builtin(ArchARMv8)
	p := planOf(t, s, a57, "ipc", "l1d_miss_ratio", "l1d_mpki", "branch_miss_ratio", "branch_mpki")
	want := "{cycles,instructions,L1-dcache-load-misses,L1-dcache-loads,branch-misses,branches}"
	if got := p.Events(); got != want {
		t.Errorf("A57 plan\n got %s\nwant %s", got, want)
	}
	// All of cache, tlb, branch and stall: 12 general events split into groups of at most 6
	// that each carry cycles and instructions.
	p = planOf(t, s, a57, "cache", "tlb", "branch", "stall", "default")
	want = "{cycles,instructions,L1-dcache-load-misses,L1-dcache-loads,L1-icache-load-misses,LLC-load-misses,LLC-loads}," +
		"{cycles,instructions,cache-misses,cache-references,dTLB-load-misses,branch-misses,branches}," +
		"{cycles,instructions,iTLB-load-misses,stalled-cycles-frontend,stalled-cycles-backend}," +
		"task-clock,context-switches,cpu-migrations,page-faults"
	if got := p.Events(); got != want {
		t.Errorf("A57 full plan\n got %s\nwant %s", got, want)
	}
}

func TestPlanARM1176(t *testing.T) {
	// 2 general counters + the cycle counter, rpistat's metrics with raw codes. Every ratio
	// and rate gets its operands in one group; rpistat itself paired them differently and
	// computed PTI rates across event sets.
	arm11 := Machine{Counters: 2, CycleCounter: true, Arch: ArchARM1176}
	s, err := Builtin(ArchARM1176).Merge(Def{Name: "dc_miss_per_branch_pti", Expr: "1000 * r0B / r05 / r07"})
	if err != nil {
		t.Fatal(err)
	}
	p := planOf(t, s, arm11, "rpistat", "dc_miss_per_branch_pti")
	want := "{cycles,r0B,r09},{cycles,r07,r04},{cycles,r06,r05},{cycles,r07,r05},{cycles,r07,r0F},{cycles,r07,r01}"
	if got := p.Events(); got != want {
		t.Errorf("ARM1176 plan\n got %s\nwant %s", got, want)
	}
	if len(p.Unschedulable) != 1 || p.Unschedulable[0].String() != "dc_miss_per_branch_pti needs 3 counters at once (r0B,r05,r07), the CPU has 2" {
		t.Errorf("unschedulable = %v", p.Unschedulable)
	}
	// Without a dedicated cycle counter, CPI alone needs both counters.
	p = planOf(t, s, Machine{Counters: 2}, "cpi", "ibuf_stall_pct")
	if got := p.Events(); got != "{cycles,r07},{cycles,r01}" {
		t.Errorf("no cycle counter: %s", got)
	}
}

func TestPlanX86Fixed(t *testing.T) {
	// x86: cycles and instructions on fixed counters; 4 general counters take the rest.
	x86 := Machine{Counters: 4, CycleCounter: true, Fixed: []string{"instructions"}, Arch: ArchX86}
	p := planOf(t, Builtin(ArchX86), x86, "default", "l1d_miss_ratio", "llc_miss_ratio")
	want := "{cycles,instructions,branch-misses,branches,L1-dcache-load-misses,L1-dcache-loads},{cycles,instructions,LLC-load-misses,LLC-loads}," +
		"task-clock,context-switches,cpu-migrations,page-faults"
	if got := p.Events(); got != want {
		t.Errorf("x86 plan\n got %s\nwant %s", got, want)
	}
}

func TestPlanUnknownMetric(t *testing.T) {
	if _, err := NewPlan(Builtin(""), []string{"nosuch"}, Machine{Counters: 4}); err == nil {
		t.Error("unknown metric planned")
	}
}

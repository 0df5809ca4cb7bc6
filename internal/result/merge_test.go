package result

import (
	"math"
	"testing"
)

// TestMergedUserCopies: every event the user named is its own row with its own count, as perf
// prints it; the three page-faults printed one row of 74 for a true 49.
func TestMergedUserCopies(t *testing.T) {
	var s []Summary
	for g := range 3 {
		s = append(s, Summary{Event: "page-faults", CPU: -1, Group: 0, Status: Counted, RawMean: 49, Mean: 49, Enabled: 1000 + uint64(g), Running: 1000 + uint64(g)})
	}
	s = append(s, Summary{Event: "instructions", CPU: -1, Group: 1, Status: Counted, RawMean: 600, Mean: 900, Enabled: 900, Running: 600,
		Bound: NewBound(9, 900, 10)})
	s = append(s, Summary{Event: "instructions", CPU: -1, Group: 2, Status: Counted, RawMean: 300, Mean: 900, Enabled: 900, Running: 300,
		Bound: NewBound(18, 900, 10)})
	m := Merged(s)
	if len(m) != 5 {
		t.Fatalf("%d rows, want 5 (every event named is printed): %+v", len(m), m)
	}
	for i, r := range m {
		if r.Mean != s[i].Mean || r.Running != s[i].Running || r.Bound != s[i].Bound {
			t.Errorf("row %d %+v, want the user's count as it is %+v", i, r, s[i])
		}
	}
}

// TestMergedPlannerCopies: the planner's copies of one event are pooled into one row, the
// true count with their summed running share, however many copies (the old fold clamped the
// running time after the first copy and tripled three copies' count).
func TestMergedPlannerCopies(t *testing.T) {
	for _, n := range []int{2, 3, 9, 120} {
		// n copies, each on the PMU 1/n of a 1000 ns run at 2 events/ns, except a lost share.
		var s []Summary
		per := uint64(1000 / n)
		for g := range n {
			raw := float64(2 * per)
			s = append(s, Summary{Event: "instructions", CPU: -1, Group: g, Planned: true, Status: Counted, Runs: 1,
				RawMean: raw, Mean: raw * 1000 / float64(per), Min: raw * 1000 / float64(per), Max: raw * 1000 / float64(per),
				Enabled: 1000, Running: per, Bound: NewBound(20, 2000, 10)})
		}
		s = append(s, Summary{Event: "instructions", CPU: -1, Group: n, Planned: true, Status: NotCounted, Enabled: 1000})
		m := Merged(s)
		if len(m) != 1 {
			t.Fatalf("n=%d: %d rows, want 1: %+v", n, len(m), m)
		}
		r := m[0]
		if math.Abs(r.Mean-2000) > 1e-6 || r.Running != per*uint64(n) || r.RawMean != float64(2*per*uint64(n)) || r.Status != Counted {
			t.Errorf("n=%d: pooled %+v, want 2000 over %d ns running", n, r, per*uint64(n))
		}
		if len(r.Groups) != n+1 {
			t.Errorf("n=%d: groups %v", n, r.Groups)
		}
		// Equal weights: the pooled bound is each copy's (they may err alike).
		if !r.Bound.Known() || math.Abs(r.Bound.Abs-20) > 1e-9 || math.Abs(r.Bound.Pct-1) > 1e-9 {
			t.Errorf("n=%d: bound %+v, want 20 (1%%)", n, r.Bound)
		}
	}
}

// TestMergedPlannerBeside: the user's row stands as counted beside the planner's copies; a
// copy that ran all the time is the count; a copy without a bound leaves the pool without one.
func TestMergedPlannerBeside(t *testing.T) {
	user := Summary{Event: "instructions", CPU: -1, Group: 0, Status: Counted, RawMean: 500, Mean: 1000, Enabled: 1000, Running: 500,
		Bound: NewBound(10, 1000, 5)}
	planned := Summary{Event: "instructions", CPU: -1, Group: 1, Planned: true, Status: Counted, RawMean: 100, Mean: 400, Enabled: 1000, Running: 250}
	if m := Merged([]Summary{user, planned}); len(m) != 1 || m[0].Mean != 1000 || m[0].Running != 500 || m[0].Bound != user.Bound {
		t.Errorf("user + planner copy: %+v, want the user's row alone", m)
	}
	full := Summary{Event: "cycles", CPU: -1, Group: 2, Planned: true, Status: Counted, RawMean: 999, Mean: 999, Enabled: 1000, Running: 1000}
	part := Summary{Event: "cycles", CPU: -1, Group: 3, Planned: true, Status: Counted, RawMean: 400, Mean: 800, Enabled: 1000, Running: 500,
		Bound: NewBound(8, 800, 5)}
	if m := Merged([]Summary{part, full}); len(m) != 1 || m[0].Mean != 999 || m[0].Bound != nil || m[0].Running != 1000 {
		t.Errorf("a copy that ran all the time: %+v, want it alone, exact", m)
	}
	none := planned
	none.Bound = NoBound("too short")
	planned.Bound = NewBound(4, 400, 5)
	m := Merged([]Summary{planned, none})
	if len(m) != 1 || m[0].Bound.Known() || m[0].Bound.Unknown != "too short" {
		t.Errorf("a copy with an unknown bound: %+v, want the pool's unknown", m[0].Bound)
	}
	none.Bound = nil // multiplexed, but no bound computed (--no-bound)
	if m := Merged([]Summary{planned, none}); len(m) != 1 || m[0].Bound != nil {
		t.Errorf("a copy with no bound computed: %+v, want none for the pool", m[0].Bound)
	}
}

package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

const enabledNS = 2_000_000_000

// sum is a counted Summary row that ran pct percent of its enabled time.
func sum(event string, group int, mean, pct float64) result.Summary {
	return result.Summary{Event: event, Group: group, CPU: -1, Status: result.Counted, Runs: 1, Mean: mean,
		RawMean: mean * pct / 100, Enabled: enabledNS, Running: uint64(enabledNS * pct / 100)}
}

func find(t *testing.T, ms []result.Metric, name string, cpu int) result.Metric {
	t.Helper()
	for _, m := range ms {
		if m.Name == name && m.CPU == cpu {
			return m
		}
	}
	t.Fatalf("no metric %s for cpu %d in %+v", name, cpu, ms)
	return result.Metric{}
}

// TestCortexA5Multiplexing rebuilds the seed's run on a Cortex-A5 (2 counters + cycle
// counter, 4 hardware events, each its own group, low multiplexing rate): perf printed
// "191.03% of all branches" and "12.75 insns per cycle" on a single-issue core as facts.
func TestCortexA5Multiplexing(t *testing.T) {
	r := &result.Stat{Scaled: true, Summary: []result.Summary{
		sum("task-clock", 0, 4.6e9, 100),
		sum("branch-misses", 1, 878094, 99.60),
		sum("branches", 2, 459661, 78.82),
		sum("cycles", 3, 23028913, 82.95),
		sum("instructions", 4, 293729707, 99.77),
	}, ElapsedSec: 4.7}
	s := Builtin(ArchARMv7)
	ms := s.Compute(r, []string{"branch_miss_ratio", "ipc"}, Options{IssueWidth: 1 /* Cortex-A5: single issue */})

	br := find(t, ms, "branch_miss_ratio", -1)
	if !br.Valid || math.Abs(br.Value-100*878094.0/459661) > 1e-9 || br.Together {
		t.Errorf("branch_miss_ratio = %+v; want valid 191.03 %% not measured together", br)
	}
	want := "implausible: 191.03% exceeds 100%; not measured together: branch-misses ran 99.60% (group 1), branches ran 78.82% (group 2)"
	if br.Warning != want {
		t.Errorf("branch_miss_ratio warning\n got %s\nwant %s", br.Warning, want)
	}
	if br.Event != "branch-misses" || br.Unit != "%" {
		t.Errorf("branch_miss_ratio printed beside %q in %q", br.Event, br.Unit)
	}

	ipc := find(t, ms, "ipc", -1)
	if !ipc.Valid || math.Abs(ipc.Value-293729707.0/23028913) > 1e-9 || ipc.Together {
		t.Errorf("ipc = %+v; want valid 12.75 not measured together", ipc)
	}
	want = "implausible: 12.75 instructions per cycle on a core that issues at most 1; " +
		"not measured together: instructions ran 99.77% (group 4), cycles ran 82.95% (group 3)"
	if ipc.Warning != want {
		t.Errorf("ipc warning\n got %s\nwant %s", ipc.Warning, want)
	}
	if ipc.Event != "instructions" {
		t.Errorf("ipc printed beside %q, want instructions", ipc.Event)
	}
}

// TestGroupedTogether: the same events in one group share their running time, so the ratio
// is exact even though the group was multiplexed.
func TestGroupedTogether(t *testing.T) {
	r := &result.Stat{Scaled: true, Summary: []result.Summary{
		sum("cycles", 0, 4e8, 60), sum("instructions", 0, 3e8, 60),
		sum("branches", 0, 5e7, 60), sum("branch-misses", 0, 1e6, 60),
		sum("cycles", 1, 4.1e8, 40), sum("L1-dcache-loads", 1, 1e8, 40),
	}}
	ms := Builtin("").Compute(r, []string{"ipc", "branch_miss_ratio", "l1d_mpki"}, Options{IssueWidth: 2})
	ipc := find(t, ms, "ipc", -1)
	if !ipc.Valid || ipc.Value != 0.75 || !ipc.Together || ipc.Warning != "" {
		t.Errorf("ipc = %+v; want 0.75 together from group 0", ipc)
	}
	br := find(t, ms, "branch_miss_ratio", -1)
	if !br.Valid || br.Value != 2 || !br.Together || br.Warning != "" {
		t.Errorf("branch_miss_ratio = %+v; want 2%% together", br)
	}
	l1 := find(t, ms, "l1d_mpki", -1)
	if l1.Valid || l1.Warning != "L1-dcache-load-misses was not counted; add it to the events" {
		t.Errorf("l1d_mpki = %+v; want invalid, operand missing", l1)
	}
}

func TestInvalidAndWarnings(t *testing.T) {
	r := &result.Stat{Scaled: true, Summary: []result.Summary{
		sum("cycles", 0, 1e9, 100), sum("instructions", 0, 5e8, 100),
		{Event: "stalled-cycles-frontend", Group: 1, CPU: -1, Status: result.NotSupported, Error: "the PMU does not map this event"},
		{Event: "LLC-loads", Group: 2, CPU: -1, Status: result.NotCounted, Enabled: enabledNS},
		sum("LLC-load-misses", 3, 10, 100),
		sum("branches", 4, 0, 100), sum("branch-misses", 4, 0, 100), // QEMU: both read 0
		sum("L1-dcache-load-misses", 5, 2e6, 3.125),
		sum("cycles", 5, 9e8, 3.125),
	}}
	ms := Builtin("").Compute(r, []string{"frontend_stall_pct", "llc_miss_ratio", "branch_miss_ratio", "l1d_mpki", "cpi"}, Options{IssueWidth: 4})
	tests := []struct {
		name, warning string
		valid         bool
		value         float64
	}{
		{"frontend_stall_pct", "stalled-cycles-frontend <not supported>: the PMU does not map this event", false, 0},
		{"llc_miss_ratio", "LLC-loads <not counted>: it never got a counter", false, 0},
		{"branch_miss_ratio", "undefined: division by zero (branches is 0)", false, 0},
		// instructions ran the whole time: the ratio is together, the 3% extrapolation is not.
		{"l1d_mpki", "L1-dcache-load-misses ran only 3.12% of the time; its scaled count is an extrapolation", true, 4},
		{"cpi", "", true, 2},
	}
	for _, tt := range tests {
		m := find(t, ms, tt.name, -1)
		if m.Valid != tt.valid || m.Value != tt.value || m.Warning != tt.warning {
			t.Errorf("%s = %+v\nwant valid=%v value=%v warning=%q", tt.name, m, tt.valid, tt.value, tt.warning)
		}
	}
	// An implausibly low CPI on a 4-wide core: 0.2 cycles per instruction.
	r.Summary[1].Mean = 5e9
	m := find(t, Builtin("").Compute(r, []string{"cpi"}, Options{IssueWidth: 4}), "cpi", -1)
	if m.Warning != "implausible: 0.20 cycles per instruction on a core that issues at most 4 per cycle" {
		t.Errorf("cpi warning = %q", m.Warning)
	}
}

func TestSoftwareAndToolEvents(t *testing.T) {
	r := &result.Stat{Scaled: true, ElapsedSec: 0.5, Summary: []result.Summary{
		sum("task-clock", 0, 0.75e9, 100), // 750 ms of CPU time in 500 ms of wall time
		sum("context-switches", 1, 30, 100),
		sum("cycles", 2, 1.5e9, 100),
		sum("page-faults", 3, 120, 100),
	}}
	ms := Builtin("").Compute(r, []string{"cpus_utilized", "ghz", "context_switches_per_sec", "page_faults_per_sec"}, Options{})
	for name, want := range map[string]float64{"cpus_utilized": 1.5, "ghz": 2, "context_switches_per_sec": 40, "page_faults_per_sec": 160} {
		m := find(t, ms, name, -1)
		if !m.Valid || math.Abs(m.Value-want) > 1e-12 || !m.Together || m.Warning != "" {
			t.Errorf("%s = %+v, want %v together", name, m, want)
		}
	}
	if m := find(t, ms, "cpus_utilized", -1); m.Event != "task-clock" || m.Unit != "CPUs utilized" {
		t.Errorf("cpus_utilized beside %q unit %q", m.Event, m.Unit)
	}
	// Multiplexed cycles against an always-running task-clock: task-clock was counting
	// whenever cycles was, so the ratio is together (cycles scaled from its 50%).
	r.Summary[2] = sum("cycles", 2, 1.5e9, 50)
	m := find(t, Builtin("").Compute(r, []string{"ghz"}, Options{}), "ghz", -1)
	if !m.Valid || !m.Together || m.Warning != "" {
		t.Errorf("ghz with multiplexed cycles = %+v", m)
	}
	// Two operands multiplexed in different groups are not together.
	r.Summary[0] = sum("task-clock", 3, 1.5e9, 50)
	if m := find(t, Builtin("").Compute(r, []string{"ghz"}, Options{}), "ghz", -1); m.Together ||
		!strings.HasPrefix(m.Warning, "not measured together: cycles ran 50.00% (group 2), task-clock ran 50.00% (group 3)") {
		t.Errorf("ghz over two multiplexed groups = %+v", m)
	}
}

func TestPerCPU(t *testing.T) {
	var rows []result.Summary
	for cpu, insn := range []float64{1e6, 3e6} {
		for _, s := range []result.Summary{sum("cycles", 0, 2e6, 100), sum("instructions", 0, insn, 100)} {
			s.CPU = cpu
			rows = append(rows, s)
		}
	}
	ms := Builtin("").Compute(&result.Stat{Scaled: true, Summary: rows}, []string{"ipc"}, Options{IssueWidth: 3})
	if len(ms) != 2 || find(t, ms, "ipc", 0).Value != 0.5 || find(t, ms, "ipc", 1).Value != 1.5 {
		t.Errorf("per-CPU ipc = %+v", ms)
	}
}

func TestComputeCountsAndDefs(t *testing.T) {
	counts := []result.Count{
		{Event: "cycles", Group: 0, CPU: -1, Status: result.Counted, Raw: 100, Scaled: 200, Enabled: 10, Running: 5},
		{Event: "instructions", Group: 0, CPU: -1, Status: result.Counted, Raw: 50, Scaled: 100, Enabled: 10, Running: 5},
	}
	ms := Builtin("").ComputeCounts(counts, 1, []string{"ipc"}, Options{})
	if m := ms[0]; !m.Valid || m.Value != 0.5 || !m.Together {
		t.Errorf("interval ipc = %+v", m)
	}
	r := &result.Stat{Scaled: true, Summary: []result.Summary{sum("cycles", 0, 10, 100), sum("instructions", 0, 30, 100)}}
	got, err := Compute(r, []Def{{Name: "x", Expr: "instructions / cycles * 10", Unit: "tenths"}}, Options{})
	if err != nil || len(got) != 1 || got[0].Value != 30 || got[0].Event != "instructions" {
		t.Errorf("Compute with defs = %+v, %v", got, err)
	}
	if _, err := Compute(r, []Def{{Name: "x", Expr: "x"}}, Options{}); err == nil {
		t.Error("Compute accepted a cyclic definition")
	}
}

func TestAliasesAndSkipMissing(t *testing.T) {
	r := &result.Stat{Scaled: true, Summary: []result.Summary{
		sum("cpu-cycles", 0, 2e9, 100), sum("instructions", 0, 1e9, 100), sum("task-clock", 1, 1e9, 100),
		sum("cycles:u", 2, 5, 100), // modifiers differ: not "cycles"
		{Event: "branch-instructions", Group: 3, CPU: -1, Status: result.NotSupported},
	}}
	ms := Builtin("").Compute(r, []string{"ipc", "ghz", "branch_miss_ratio", "l1d_mpki"}, Options{SkipMissing: true})
	if len(ms) != 2 {
		t.Fatalf("SkipMissing kept %d metrics, want ipc and ghz (branch-misses and L1D events absent): %+v", len(ms), ms)
	}
	if m := find(t, ms, "ipc", -1); !m.Valid || m.Value != 0.5 || m.Event != "instructions" {
		t.Errorf("ipc over cpu-cycles = %+v", m)
	}
	if m := find(t, ms, "ghz", -1); !m.Valid || m.Value != 2 || m.Event != "cpu-cycles" {
		t.Errorf("ghz = %+v, want 2 printed beside the cpu-cycles row", m)
	}
	// Requested but unsupported: kept, invalid, with the reason.
	r.Summary = append(r.Summary, result.Summary{Event: "branch-misses", Group: 4, CPU: -1, Status: result.NotSupported})
	ms = Builtin("").Compute(r, []string{"branch_miss_ratio"}, Options{SkipMissing: true})
	if len(ms) != 1 || ms[0].Valid || ms[0].Warning != "branch-misses <not supported>" {
		t.Errorf("branch_miss_ratio = %+v", ms)
	}
}

func TestNoScale(t *testing.T) {
	r := &result.Stat{Scaled: false, Summary: []result.Summary{
		sum("cycles", 0, 1e9, 100), sum("instructions", 1, 2e7, 4),
	}}
	m := find(t, Builtin("").Compute(r, []string{"ipc"}, Options{}), "ipc", -1)
	want := "not measured together: instructions ran 4.00% (group 1), cycles ran 100.00% (group 0) and the counts are not " +
		"scaled (--no-scale), so they cover different spans; instructions ran only 4.00% of the time and is not scaled"
	if !m.Valid || m.Value != 0.02 || m.Together || m.Warning != want {
		t.Errorf("unscaled ipc = %+v\nwant warning %s", m, want)
	}
}

func TestCheckEvents(t *testing.T) {
	s, err := Builtin("").Merge(Def{Name: "mine", Expr: "ipc + 1000 * L1-dcahce-load-misses / instructions"})
	if err != nil {
		t.Fatal(err)
	}
	bad := errors.New("no such event; see pmc list")
	resolve := func(ev string) error {
		if strings.Contains(ev, "dcahce") {
			return bad
		}
		return nil
	}
	err = s.CheckEvents([]string{"ipc", "cpus_utilized", "mine"}, resolve)
	if err == nil || err.Error() != `metrics: mine: at 14: event L1-dcahce-load-misses: no such event; see pmc list` ||
		!errors.Is(err, ErrUnknownName) || !errors.Is(err, bad) {
		t.Errorf("CheckEvents = %v", err)
	}
	if err := s.CheckEvents([]string{"ipc", "cpus_utilized"}, resolve); err != nil {
		t.Errorf("CheckEvents of good metrics = %v", err)
	}
}

// Counters an emulator opens but does not model read nonsense (QEMU's raspi0: cycles equal
// to instructions at 74-606 GHz): the clock metric flags it.
func TestImplausibleClock(t *testing.T) {
	for _, tc := range []struct {
		cycles float64
		warn   bool
	}{{2.5e9, false}, {9.9e9, false}, {74e9, true}, {606e9, true}} {
		r := &result.Stat{Scaled: true, Summary: []result.Summary{sum("cycles", 0, tc.cycles, 100), sum("task-clock", 0, 1e9, 100)}}
		m := find(t, Builtin("").Compute(r, []string{"ghz"}, Options{}), "ghz", -1)
		if got := strings.Contains(m.Warning, "implausible"); got != tc.warn || !m.Valid {
			t.Errorf("%.3g cycles in 1 s of task-clock: %+v, want implausible %v", tc.cycles, m, tc.warn)
		}
	}
}

// TestMetricBound: a metric's bound is its multiplexed operands' bounds carried through its
// expression, each operand's share the larger move of the value at the ends of its interval,
// the shares added; exact operands add nothing; an operand without a known bound, or whose
// interval holds a denominator's zero, leaves the metric without a number.
func TestMetricBound(t *testing.T) {
	bounded := func(s result.Summary, pct float64) result.Summary {
		s.Bound = result.NewBound(s.Mean*pct/100, s.Mean, 11)
		return s
	}
	ipc := func(cycles, insns result.Summary) result.Metric {
		t.Helper()
		r := &result.Stat{Scaled: true, Summary: []result.Summary{cycles, insns}}
		return find(t, Builtin("").Compute(r, []string{"ipc"}, Options{}), "ipc", -1)
	}
	cycles, insns := sum("cycles", 0, 2e9, 50), sum("instructions", 1, 1e9, 50)
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9*math.Abs(want) }

	if m := ipc(sum("cycles", 0, 2e9, 100), sum("instructions", 0, 1e9, 100)); m.Bound != nil {
		t.Errorf("exact operands: ipc has bound %+v, want none", m.Bound)
	}
	// The numerator's 10% moves ipc by 10% either way.
	if m := ipc(cycles, bounded(insns, 10)); !m.Bound.Known() || !near(m.Bound.Pct, 10) || !near(m.Bound.Abs, 0.05) || m.Bound.Reads != 11 {
		t.Errorf("instructions ±10%%: ipc bound %+v, want 10%% (0.05)", m.Bound)
	}
	// The denominator's 5% moves it by at most 1/0.95-1 = 5.263%; the shares add.
	if m := ipc(bounded(cycles, 5), bounded(insns, 10)); !m.Bound.Known() || !near(m.Bound.Pct, 10+100*(1/0.95-1)) {
		t.Errorf("instructions ±10%%, cycles ±5%%: ipc bound %+v, want %.4f%%", m.Bound, 10+100*(1/0.95-1))
	}
	unknown := insns
	unknown.Bound = result.NoBound("too short")
	if m := ipc(cycles, unknown); m.Bound == nil || m.Bound.Known() || !strings.Contains(m.Bound.Unknown, "too short") {
		t.Errorf("an operand's unknown bound: ipc bound %+v, want unknown saying why", m.Bound)
	}
	// cycles ± 150%: its interval holds 0, where ipc has a pole, though both ends are finite.
	if m := ipc(bounded(cycles, 150), insns); m.Bound == nil || m.Bound.Known() || !strings.Contains(m.Bound.Unknown, "pole") {
		t.Errorf("cycles ±150%%: ipc bound %+v, want unknown (a pole)", m.Bound)
	}
}

package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNewSetErrors(t *testing.T) {
	tests := []struct {
		name string
		defs []Def
		is   error
		want string
	}{
		{"unknown function", []Def{{Name: "ipc", Expr: "rato(instructions, cycles)"}}, ErrSyntax,
			`metrics: ipc: at 1: unknown function "rato" (known: if, max, min, ratio)`},
		{"self cycle", []Def{{Name: "a", Expr: "a + 1"}}, ErrCycle, "metrics: a: reference cycle a -> a"},
		{"two-step cycle", []Def{{Name: "a", Expr: "b * 2"}, {Name: "b", Expr: "cycles / a"}}, ErrCycle,
			"metrics: b: reference cycle a -> b -> a"},
		{"three-step cycle", []Def{{Name: "x", Expr: "1"}, {Name: "a", Expr: "b"}, {Name: "b", Expr: "c + x"}, {Name: "c", Expr: "max(a, 1)"}},
			ErrCycle, "metrics: c: reference cycle a -> b -> c -> a"},
		{"duplicate", []Def{{Name: "a", Expr: "1"}, {Name: "a", Expr: "2"}}, ErrSyntax, "metrics: a: defined twice"},
		{"event name", []Def{{Name: "cycles", Expr: "1"}}, ErrSyntax, "metrics: cycles: metric name is also an event name; rename the metric"},
		{"bad name", []Def{{Name: "a b", Expr: "1"}}, ErrSyntax, "metrics: a b: invalid metric name; use letters, digits, '_', '.' and inner '-'"},
		{"no name", []Def{{Expr: "1"}}, ErrSyntax, `metrics: metric with expression "1" has no name`},
		{"empty expr", []Def{{Name: "a", Expr: " "}}, ErrSyntax, "metrics: a: empty expression"},
		{"bad issue", []Def{{Name: "a", Expr: "1", Issue: "ipx"}}, ErrSyntax, `metrics: a: issue must be "ipc" or "cpi", not "ipx"`},
		{"bad group", []Def{{Name: "a", Expr: "1", Group: "ok, not ok"}}, ErrSyntax, `metrics: a: invalid group name "not ok"`},
	}
	for _, tt := range tests {
		_, err := NewSet(tt.defs...)
		if err == nil || !errors.Is(err, tt.is) || err.Error() != tt.want {
			t.Errorf("%s: NewSet error\n got %v\nwant %s", tt.name, err, tt.want)
		}
	}
}

func TestSetEvalAndEvents(t *testing.T) {
	s, err := NewSet(
		Def{Name: "ipc", Expr: "instructions / cycles"},
		Def{Name: "ipc_pct_of_width", Expr: "100 * ipc / width"}, // width is an event name here
		Def{Name: "miss", Expr: "ratio(branch-misses, branches) * 100"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Events("ipc_pct_of_width"), ","); got != "instructions,cycles,width" {
		t.Errorf("Events = %s", got)
	}
	env := Env(map[string]float64{"instructions": 300, "cycles": 200, "width": 2, "branches": 0, "branch-misses": 0})
	v, err := s.Eval("ipc_pct_of_width", env)
	if err != nil || v != 75 {
		t.Errorf("Eval = %v, %v; want 75", v, err)
	}
	_, err = s.Eval("miss", env)
	if !errors.Is(err, ErrDivZero) || err.Error() != "metrics: miss: at 1: division by zero (branches is 0)" {
		t.Errorf("Eval(miss) error = %v", err)
	}
	_, err = s.Eval("ipc", Env(map[string]float64{"instructions": 1}))
	if !errors.Is(err, ErrUnknownName) || err.Error() != "metrics: ipc: at 16: unknown name cycles" {
		t.Errorf("Eval(ipc) error = %v", err)
	}
	if _, err := s.Eval("nosuch", env); !errors.Is(err, ErrUnknownName) {
		t.Errorf("Eval(nosuch) error = %v", err)
	}
}

func TestSelectAndMerge(t *testing.T) {
	s := Builtin(ArchGeneric)
	got, err := s.Select("ipc", "branch", "ipc", "cpi")
	if err != nil {
		t.Fatal(err)
	}
	if want := "ipc,branch_miss_ratio,branch_mpki,branch_rate,cpi"; strings.Join(got, ",") != want {
		t.Errorf("Select = %s, want %s", strings.Join(got, ","), want)
	}
	if _, err := s.Select("nosuch"); !errors.Is(err, ErrUnknownName) || !strings.Contains(err.Error(), "groups: branch, cache, default, ipc, software, stall, tlb") {
		t.Errorf("Select(nosuch) error = %v", err)
	}
	m, err := s.Merge(Def{Name: "ipc", Expr: "instructions / cycles / 2"}, Def{Name: "half_ipc", Expr: "ipc / 2"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.Eval("half_ipc", Env(map[string]float64{"instructions": 8, "cycles": 2}))
	if err != nil || v != 1 {
		t.Errorf("merged half_ipc = %v, %v; want 1 (redefined ipc = 2)", v, err)
	}
	if _, err := s.Merge(Def{Name: "cpi", Expr: "ipc"}, Def{Name: "x", Expr: "1"}); err != nil {
		t.Errorf("merge with a reference: %v", err)
	}
	if _, err := s.Merge(Def{Name: "ipc", Expr: "cpi"}, Def{Name: "cpi", Expr: "1 / ipc"}); !errors.Is(err, ErrCycle) {
		t.Errorf("merge creating a cycle: %v", err)
	}
}

// TestBuiltin evaluates every built-in metric on hand-picked counts with known results.
func TestBuiltin(t *testing.T) {
	counts := map[string]float64{
		"instructions": 2000, "cycles": 1000, "task-clock": 500, "duration_time": 1000,
		"context-switches": 3, "cpu-migrations": 1, "page-faults": 40,
		"L1-dcache-loads": 400, "L1-dcache-load-misses": 20, "L1-icache-load-misses": 4,
		"LLC-loads": 10, "LLC-load-misses": 5, "cache-references": 50, "cache-misses": 5,
		"dTLB-load-misses": 2, "iTLB-load-misses": 6, "branches": 300, "branch-misses": 15,
		"stalled-cycles-frontend": 250, "stalled-cycles-backend": 100,
	}
	want := map[string]float64{
		"ipc": 2, "cpi": 0.5, "ghz": 2, "cpus_utilized": 0.5,
		"context_switches_per_sec": 6e6, "cpu_migrations_per_sec": 2e6, "page_faults_per_sec": 8e7,
		"l1d_miss_ratio": 5, "l1d_mpki": 10, "l1i_mpki": 2, "llc_miss_ratio": 50, "llc_mpki": 2.5,
		"cache_miss_ratio": 10, "dtlb_mpki": 1, "dtlb_miss_ratio": 4, "itlb_mpki": 3, "branch_miss_ratio": 5,
		"branch_mpki": 7.5, "branch_rate": 150, "frontend_stall_pct": 25, "backend_stall_pct": 10,
	}
	checkBuiltin(t, Builtin(ArchGeneric), counts, want)

	// The rpistat report of the seed, from its scaled counts: CPI 9.474, IBUF stall 2.205 %,
	// DC miss ratio 20.484 %, micro/main TLB 0.729/0.561 PTI, branch rate 108.403 PTI and
	// mispredict ratio 1.096 %.
	rpi := map[string]float64{
		"cycles": 11759598287, "r07": 1241209259, "r01": 259324219, "r09": 18343722, "r0B": 3757582,
		"r04": 904898, "r0F": 696010, "r05": 134550814, "r06": 1474255,
	}
	s := Builtin(ArchARM1176)
	seed := map[string]float64{
		"cpi": 9.474, "ibuf_stall_pct": 2.205, "l1d_miss_ratio": 20.484, "dtlb_mpki": 0.729,
		"main_tlb_mpki": 0.561, "branch_rate": 108.403, "branch_miss_ratio": 1.096,
	}
	names, err := s.Select(GroupRpistat)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(seed) {
		t.Errorf("rpistat group = %q, want the %d metrics of the seed report", names, len(seed))
	}
	for _, n := range names {
		v, err := s.Eval(n, Env(rpi))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if math.Abs(v-seed[n]) > 0.0005 {
			t.Errorf("%s = %.4f, rpistat printed %.3f", n, v, seed[n])
		}
	}
}

func checkBuiltin(t *testing.T, s *Set, counts, want map[string]float64) {
	t.Helper()
	for _, d := range s.Defs() {
		w, ok := want[d.Name]
		if !ok {
			t.Errorf("built-in %s has no expected value in the test", d.Name)
			continue
		}
		if d.Description == "" || d.Unit == "" || d.Group == "" {
			t.Errorf("built-in %s lacks a description, unit or group", d.Name)
		}
		v, err := s.Eval(d.Name, Env(counts))
		if err != nil || math.Abs(v-w) > 1e-9*math.Abs(w) {
			t.Errorf("%s = %v, %v; want %v", d.Name, v, err, w)
		}
	}
}

func TestArch(t *testing.T) {
	for pmu, want := range map[string]string{
		"cpu": ArchX86, "armv6_1176": ArchARM1176, "armv7_cortex_a7": ArchARMv7,
		"armv8_pmuv3_0": ArchARMv8, "armv8_cortex_a57": ArchARMv8, "software": ArchGeneric,
	} {
		if got := Arch(pmu); got != want {
			t.Errorf("Arch(%q) = %q, want %q", pmu, got, want)
		}
	}
}

func TestBuiltinARM1176Complete(t *testing.T) {
	s := Builtin(ArchARM1176)
	for _, d := range s.Defs() {
		if d.Description == "" || d.Unit == "" || d.Group == "" {
			t.Errorf("%s lacks a description, unit or group", d.Name)
		}
	}
	if got := strings.Join(s.Events("ipc"), ","); got != "r07,cycles" {
		t.Errorf("ARM1176 ipc events = %s, want the raw instruction code", got)
	}
}

// chain defines m0 = m1 + e0 ... m(n-1) = e(n-1): each metric refers to the next.
func chain(n int) []Def {
	defs := make([]Def, n)
	for i := range defs {
		defs[i] = Def{Name: fmt.Sprintf("m%d", i), Expr: fmt.Sprintf("m%d + r%x", i+1, i)}
	}
	defs[n-1].Expr = fmt.Sprintf("r%x", n-1)
	return defs
}

// TestReferenceChain: every metric of a chain gets the events of the whole rest of it. Each
// metric's events are computed once (a chain of 10000 took 13.5 s when every metric walked
// the rest of the chain again; go test -bench Chain for the numbers).
func TestReferenceChain(t *testing.T) {
	s, err := NewSet(chain(300)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 150, 299} {
		evs := s.Events(fmt.Sprintf("m%d", i))
		if len(evs) != 300-i || evs[0] != "r12b" || evs[len(evs)-1] != fmt.Sprintf("r%x", i) {
			t.Errorf("m%d: %d events %v...", i, len(evs), evs[:min(3, len(evs))])
		}
	}
}

// BenchmarkChain: m0 = m1 + 1 ... m9999 = 1, the adversarial test's chain.
func BenchmarkChain(b *testing.B) {
	defs := make([]Def, 10000)
	for i := range defs {
		defs[i] = Def{Name: fmt.Sprintf("m%d", i), Expr: fmt.Sprintf("m%d + 1", i+1)}
	}
	defs[len(defs)-1].Expr = "1"
	for b.Loop() {
		if _, err := NewSet(defs...); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSelectHere: a name only another CPU's built-ins know is a warning that says where,
// and the rest is selected; a name no CPU knows is the usual error.
func TestSelectHere(t *testing.T) {
	got, warnings, err := Builtin(ArchARMv7).SelectHere("ipc", "l1d_refill_rate", "rpistat", "dtlb_miss_ratio")
	if err != nil || strings.Join(got, ",") != "ipc,dtlb_miss_ratio" || len(warnings) != 2 ||
		!strings.Contains(warnings[0], "l1d_refill_rate") || !strings.Contains(warnings[0], "armv8") || !strings.Contains(warnings[1], "arm1176") {
		t.Errorf("SelectHere = %v, %q, %v", got, warnings, err)
	}
	if _, _, err := Builtin(ArchX86).SelectHere("ipc", "nosuch"); !errors.Is(err, ErrUnknownName) {
		t.Errorf("an unknown name: %v", err)
	}
	if w := Elsewhere("dtlb_miss_ratio"); !slices.Contains(w, "armv8") || slices.Contains(w, ArchARM1176) {
		t.Errorf("dtlb_miss_ratio is defined for %v: want every CPU with cache-references (not the ARM1176)", w)
	}
}

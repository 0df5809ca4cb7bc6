package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pmc-tools/pmc/internal/host"
)

// hostSnapshot is one of host's recorded machines.
func hostSnapshot(t *testing.T, name string) *host.Machine {
	t.Helper()
	dir := filepath.Join("..", "host", "testdata", "hosts")
	return host.Probe(os.DirFS(filepath.Join(dir, name)), os.DirFS(filepath.Join(dir, name+"-sys")))
}

// TestArchOn: the built-in metrics follow the core PMU, else the Arm core pmc knows, else
// perf's generic names (a VM without a PMU).
func TestArchOn(t *testing.T) {
	for name, want := range map[string]string{"qemu-a57": ArchARMv8, "qemu-a7": ArchARMv7, "x86-vm": ArchGeneric} {
		if got := ArchOn(hostSnapshot(t, name)); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// TestPlannerByEncoding: the planner costs events by their encoding, not their spelling. On
// the Cortex-A57 snapshot, instructions/cycles, INST_RETIRED/CPU_CYCLES (the catalog's names),
// r08/r00011 (raw) and the sysfs names are one plan each: cycles pinned on the cycle counter,
// instructions on one general counter. Before, only the generic spelling was known as cycles.
func TestPlannerByEncoding(t *testing.T) {
	m := hostSnapshot(t, "qemu-a57")
	set, err := NewSet(
		Def{Name: "generic", Expr: "instructions / cycles"},
		Def{Name: "catalog", Expr: "INST_RETIRED / CPU_CYCLES"},
		Def{Name: "raw", Expr: "r08 / r00011"},
		Def{Name: "sysfs", Expr: `"armv8_pmuv3/inst_retired/" / "armv8_pmuv3/cpu_cycles/"`},
	)
	if err != nil {
		t.Fatal(err)
	}
	pm, _ := MachineOf(m)
	one := pm
	one.Counters = 1 // cycles must take no general counter for these to fit
	for _, c := range []struct{ metric, want string }{
		{"generic", "cycles:D,instructions"},
		{"catalog", "CPU_CYCLES:D,INST_RETIRED"},
		{"raw", "r00011:D,r08"},
		{"sysfs", "armv8_pmuv3/cpu_cycles/:D,armv8_pmuv3/inst_retired/"},
	} {
		p, err := NewPlan(set, []string{c.metric}, one, ResolverOn(m))
		if err != nil {
			t.Fatalf("%s: %v", c.metric, err)
		}
		if p.Events() != c.want || len(p.Unschedulable) != 0 {
			t.Errorf("%s: plan %s (unschedulable %v), want %s", c.metric, p.Events(), p.Unschedulable, c.want)
		}
	}
	// All four metrics at once are one pair of counters: the same two events.
	p, err := NewPlan(set, []string{"generic", "catalog", "raw", "sysfs"}, pm, ResolverOn(m))
	if err != nil || p.Events() != "cycles:D,instructions" {
		t.Errorf("all four: %s, %v", p.Events(), err)
	}
	for _, ev := range []string{"cycles", "CPU_CYCLES", "r00011", "r11", "armv8_pmuv3/cpu_cycles/", "cycles:u"} {
		e, err := ResolverOn(m)(ev)
		if err != nil || !isCycles(pm, e) {
			t.Errorf("%s: %+v %v, want the cycle counter's event", ev, e, err)
		}
	}
}

func isCycles(pm Machine, e Encoding) bool {
	c := pm.Canon(e)
	for _, x := range pm.Cycles {
		if x.Type == c.Type && x.Config == c.Config {
			return true
		}
	}
	return false
}

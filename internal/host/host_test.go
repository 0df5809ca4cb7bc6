package host

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pmc-tools/pmc/internal/events"
)

func snapshot(t *testing.T, name string) *Machine {
	t.Helper()
	dir := filepath.Join("testdata", "hosts")
	return Probe(os.DirFS(filepath.Join(dir, name)), os.DirFS(filepath.Join(dir, name+"-sys")))
}

func TestProbeX86VM(t *testing.T) {
	m := snapshot(t, "x86-vm")
	if m.Core != nil || m.Table != nil || m.Countable {
		t.Errorf("a VM without a PMU: core %v table %v countable %v", m.Core, m.Table, m.Countable)
	}
	if m.CPU.Vendor != "AuthenticAMD" || m.Processors != 2 || m.PMUs.PMUs["msr"] == nil {
		t.Errorf("cpu %+v, %d processors, PMUs %v", m.CPU, m.Processors, m.PMUs.Names())
	}
	if c, assumed := m.Counters(); c.General != 6 || c.Cycle || assumed {
		t.Errorf("Zen 3 counters %+v assumed %v, want 6 general from the catalog", c, assumed)
	}
	if got := m.PMULine(); !strings.HasPrefix(got, "none") {
		t.Errorf("PMU line %q", got)
	}
	if w := m.WithTable(); w.Table == nil || w.Table.Name != "amd-zen3" || w.Countable {
		t.Errorf("WithTable: %v countable %v", w.Table, w.Countable)
	}
}

func TestProbeQEMUA57(t *testing.T) {
	m := snapshot(t, "qemu-a57")
	if m.Core == nil || m.Core.Name != "armv8_pmuv3" || m.Table == nil || m.Table.Name != "cortex-a57" || !m.Countable {
		t.Fatalf("core %v table %v countable %v", m.Core, m.Table, m.Countable)
	}
	if m.Driver == nil || m.Driver.Name != "armv8" || !strings.Contains(m.Note, "generic PMUv3 driver") {
		t.Errorf("driver %v note %q", m.Driver, m.Note)
	}
	if !m.Advertised[0x11] || !m.Advertised[0x08] || len(m.Advertised) != 2 {
		t.Errorf("advertised %v, want cpu_cycles and inst_retired", m.Advertised)
	}
	if m.ArmCoreArch() != "armv8" || m.IssueWidth() != 3 {
		t.Errorf("arch %q width %v", m.ArmCoreArch(), m.IssueWidth())
	}
	if got, want := m.PMULine(), "armv8_pmuv3, 6 general counters + cycle counter (cortex-a57, issues up to 3 per cycle)"; got != want {
		t.Errorf("PMU line %q, want %q", got, want)
	}
	gs, err := m.Resolve("cache-misses,INST_RETIRED", events.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The generic PMUv3 driver maps cache-misses to L1D_CACHE_REFILL, which QEMU's PMCEID
	// does not advertise.
	if got := gs[0].Events[0].Resolved; got != "cache-misses = not advertised by armv8_pmuv3 (PMCEID lacks 0x03)" {
		t.Errorf("label %q", got)
	}
	if ev := gs[1].Events[0]; ev.Attr.Type != m.Core.Type || ev.Attr.Config != 0x08 {
		t.Errorf("INST_RETIRED: %+v", ev.Attr)
	}
}

// TestLoadFacts: recorded facts go through Probe like a snapshot of the machine would.
func TestLoadFacts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "cli", "testdata", "fake", "machine-cortex-a7.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Core == nil || m.Core.Name != "armv7_cortex_a7" || m.Table == nil || m.Table.Name != "cortex-a7" || !m.Countable || m.Driver != nil {
		t.Fatalf("core %v table %v countable %v driver %v", m.Core, m.Table, m.Countable, m.Driver)
	}
	if c, assumed := m.Counters(); c.General != 4 || !c.Cycle || assumed || m.IssueWidth() != 2 {
		t.Errorf("counters %+v assumed %v width %v", c, assumed, m.IssueWidth())
	}
	if m.Hostname == "" || !strings.HasPrefix(m.Kernel, "Linux ") || m.Processors < 1 || m.Date.IsZero() {
		t.Errorf("header facts: %q %q %d %v", m.Hostname, m.Kernel, m.Processors, m.Date)
	}
	for _, bad := range []string{`[]`, `{"pmu": "x", "bogus": 1}`, `{"processors": -1}`} {
		if _, err := Load([]byte(bad)); err == nil {
			t.Errorf("Load(%s) accepted", bad)
		}
	}
}

func TestEmpty(t *testing.T) {
	m := Empty()
	if m.Core != nil || m.Table != nil || len(m.PMUs.PMUs) != 0 || m.CPUErr == nil {
		t.Errorf("empty machine knows something: %+v", m)
	}
	if _, err := m.Resolve("cycles,page-faults,r11", events.Options{}); err != nil {
		t.Errorf("fixed event types must resolve: %v", err)
	}
	if _, err := m.Resolve("INST_RETIRED", events.Options{}); err == nil {
		t.Error("a table event resolved on a machine without a table")
	}
}

// FuzzLoad: recorded facts are loaded or refused, never a panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"host":"h","kernel":"Linux 6.1","processors":2,"pmu":"armv7_cortex_a7","cpuinfo":"CPU implementer\t: 0x41\nCPU part\t: 0xc07\n"}`))
	f.Add([]byte(`{"pmu":"../../x","processors":65536}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := Load(data); err == nil {
			m.PMULine()
			m.Counters()
		}
	})
}

// TestPMUQualifiedTableNames (issue 15 item 14): an event of the CPU's table that sysfs does
// not list (QEMU advertises no 0x03) resolves under its PMU's name too: all three spellings
// are L1D_CACHE_REFILL, 0x03.
func TestPMUQualifiedTableNames(t *testing.T) {
	m := snapshot(t, "qemu-a57")
	for _, spec := range []string{"l1d_cache_refill", "armv8_pmuv3/l1d_cache_refill/", "armv8_pmuv3/L1D_CACHE_REFILL/"} {
		gs, err := m.Resolve(spec, events.Options{})
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if a := gs[0].Events[0].Attr; a.Type != m.Core.Type || a.Config != 0x03 {
			t.Errorf("%s: type %d config %#x, want %d 0x03", spec, a.Type, a.Config, m.Core.Type)
		}
	}
	if _, err := m.Resolve("armv8_pmuv3/no_such_event/", events.Options{}); err == nil {
		t.Error("armv8_pmuv3/no_such_event/ resolved")
	}
}

// TestAggregate: perf's --per-socket, --per-die, --per-core and --per-node ids from sysfs
// topology (die_id and the cpuN/nodeM link where the kernel has them).
func TestAggregate(t *testing.T) {
	sys := fstest.MapFS{}
	for cpu, tp := range []CPUTopology{{0, 0, 0, 0}, {0, 1, 1, 0}, {0, 0, 0, 1}, {1, 0, 4, 1}} {
		d := fmt.Sprintf("devices/system/cpu/cpu%d/topology/", cpu)
		sys[d+"physical_package_id"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("%d\n", tp.Socket))}
		sys[d+"core_id"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("%d\n", tp.Core))}
		if tp.Die != 0 {
			sys[d+"die_id"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("%d\n", tp.Die))}
		}
		sys[fmt.Sprintf("devices/system/cpu/cpu%d/node%d", cpu, tp.Node)] = &fstest.MapFile{Mode: fs.ModeSymlink}
	}
	m := &Machine{Sys: sys}
	topo, err := m.Topology([]int{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for by, want := range map[string]string{"socket": "S0[0 1 2] S1[3]", "core": "S0-D0-C0[0 2] S0-D1-C1[1] S1-D0-C4[3]",
		"die": "S0-D0[0 2] S0-D1[1] S1-D0[3]", "node": "N0[0 1] N1[2 3]"} {
		agg, err := Aggregate(by, topo, []int{0, 1, 2, 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range agg.Groups {
			got = append(got, fmt.Sprintf("%s%v", g.ID, g.CPUs))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: %s, want %s", by, strings.Join(got, " "), want)
		}
	}
	if _, err := m.Topology([]int{7}); err == nil {
		t.Error("CPU 7 without topology files: no error")
	}
}

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/host"
)

// onHost makes the machine pmc sees the snapshot ../host/testdata/hosts/<name> (root) and
// <name>-sys (/sys) for one test.
func onHost(t *testing.T, name string) {
	t.Helper()
	old := machine
	m := host.Probe(os.DirFS(filepath.Join(hostsDir, name)), os.DirFS(filepath.Join(hostsDir, name+"-sys")))
	machine = func() *host.Machine { return m }
	t.Cleanup(func() { machine = old })
}

// mustContain reports each wanted text missing from out.
func mustContain(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// runPMC runs pmc with args and returns stdout, stderr and the exit status.
func runPMC(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := testRun(args, &out, &errb)
	return out.String(), errb.String(), code
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata/list", name), []byte(got))
}

func TestListOnThisX86VM(t *testing.T) {
	onHost(t, "x86-vm")
	out, errs, code := runPMC("list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, out,
		"CPU:      AuthenticAMD family 0x19 model 0x1",
		"Table:    amd-zen3",
		"Core PMU: none in /sys/bus/event_source/devices",
		"task-clock                                 [software]",
		"(10; not available here: no cpu PMU in sysfs unless marked)",
		"cache-misses                               [hardware] = l2_cache_req_stat.ic_dc_miss_in_l2 (0x64/0x09)",
		"bus-cycles                                 [hardware; not supported on amd-zen3]",
		"msr/tsc/",
		"Events of table amd-zen3 (59; table (not countable here) unless marked)",
		"Tracepoints (8):", // not a terminal: every tracepoint, as `perf list | grep` expects
		"  sched:sched_switch                         [tracepoint]",
	)
	checkGolden(t, "x86-vm.golden", out)

	// On a terminal, the tracepoints are counted, not listed.
	var b bytes.Buffer
	if err := runList(&b, machine(), &listFlags{}, ""); err != nil {
		t.Fatal(err)
	}
	mustContain(t, b.String(), "Tracepoints: 8 (list them with pmc list 'SUBSYSTEM:*' or pmc list '*:*')")
	if strings.Contains(b.String(), "sched:sched_switch") {
		t.Errorf("a terminal's list names the tracepoints:\n%s", b.String())
	}
}

// --raw-dump names the countable events on one line, as perf list --raw-dump (perf's own
// tests loop over it): the x86 VM has no core PMU, so no hardware event is named.
func TestListRawDump(t *testing.T) {
	onHost(t, "x86-vm")
	for what, want := range map[string]string{
		"sw":           "cpu-clock task-clock page-faults minor-faults major-faults context-switches cpu-migrations alignment-faults emulation-faults dummy bpf-output cgroup-switches\n",
		"hw":           "\n",
		"cache":        "\n",
		"pmu":          "msr/tsc/\n",
		"sched:*":      "sched:sched_process_exec sched:sched_switch sched:sched_wakeup\n",
		"metricgroups": "branch cache default ipc software stall tlb\n",
	} {
		out, errs, code := runPMC("list", "--raw-dump", what)
		if code != 0 || out != want {
			t.Errorf("list --raw-dump %s: exit %d %s\n got %q\nwant %q", what, code, errs, out, want)
		}
	}
	out, _, _ := runPMC("list", "--raw-dump", "metrics")
	mustContain(t, out, "ipc ", " ghz ", " cpus_utilized ", " page_faults_per_sec ")
	out, _, _ = runPMC("list", "--raw-dump")
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "task-clock") || !strings.Contains(out, "msr/tsc/") ||
		!strings.Contains(out, "syscalls:sys_exit_read") || strings.Contains(out, "mem:ADDR") || strings.Contains(out, "instructions") {
		t.Errorf("list --raw-dump: %q", out)
	}
}

type listJSON struct {
	Schema      string
	CPU         string
	Table       string
	CorePMU     string `json:"core_pmu"`
	Tracepoints int
	Events      []listEntry
}

func decodeList(t *testing.T, out string) listJSON {
	t.Helper()
	var l listJSON
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	return l
}

// The acceptance test: pmc list --cpu cortex-a7 --json holds every event of the
// Cortex-A7 table in seed 000 with the same code.
func TestListCortexA7JSONHoldsTheSeedTable(t *testing.T) {
	onHost(t, "x86-vm")
	out, errs, code := runPMC("list", "--cpu", "cortex-a7", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	l := decodeList(t, out)
	if l.Schema != "pmc.list/v1" || l.Table != "cortex-a7" || l.CorePMU != "" {
		t.Fatalf("header: %+v", l)
	}
	table := map[string]listEntry{}
	for _, e := range l.Events {
		if e.Kind == "table" {
			table[e.Code] = e
		}
	}
	f, err := os.Open("../catalog/testdata/seed-cortex-a7.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		code, name, _ := strings.Cut(line, "\t")
		e, ok := table[strings.ToLower(code)]
		if !ok || e.Name != name {
			t.Errorf("seed event %s %s: got %+v", code, name, e)
		}
		if e.Available || e.Status != "on cortex-a7" {
			t.Errorf("%s: available %v status %q browsing cortex-a7 on another machine", name, e.Available, e.Status)
		}
		n++
	}
	if n != 42 || len(table) != 43 {
		t.Errorf("%d seed events, %d table events (want 42 and 43 with the 0xff cycle counter)", n, len(table))
	}
	for _, e := range l.Events {
		if e.Name == "cache-misses" && (e.MapsTo != "L1D_CACHE_REFILL (0x03)" || e.Code != "0x03" || e.Encoding != "r3") {
			t.Errorf("cache-misses: %+v", e)
		}
	}
}

// Real QEMU guest: the generic armv8_pmuv3 driver, PMCEID advertising only cycles and
// instructions (pmc stat there printed <not supported> for every other generic name).
func TestListOnQEMUCortexA57(t *testing.T) {
	onHost(t, "qemu-a57")
	out, errs, code := runPMC("list", "--long")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, out,
		"Table:    cortex-a57",
		"Note:     the kernel drives armv8_pmuv3 with its generic PMUv3 driver",
		"Core PMU: armv8_pmuv3",
		"cpu-cycles OR cycles                       [hardware] = CPU_CYCLES (0x11)",
		"instructions                               [hardware] = INST_RETIRED (0x08)",
		"(32; not supported by the generic PMUv3 driver unless marked)",
		"cache-misses                               [hardware; not advertised by armv8_pmuv3 (PMCEID lacks 0x03)] = L1D_CACHE_REFILL (0x03)",
		"L1-dcache-stores                           [cache]",
		"armv8_pmuv3/cpu_cycles/",
		"Events of table cortex-a57 (83):",
	)
	checkGolden(t, "qemu-a57-long.golden", out)
}

// A Cortex-A57 whose device tree names its PMU: the Cortex-A57 driver and its fallbacks.
func TestListOnA57WithItsOwnDriver(t *testing.T) {
	onHost(t, "juno-a57")
	out, errs, code := runPMC("list", "cache")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, out,
		"Core PMU: armv8_cortex_a57",
		"L1-dcache-loads                            [cache; countable] = L1D_CACHE (0x04)",
		"L1-dcache-stores                           [cache; countable] = L1D_CACHE_WR (0x41)",
		"LLC-loads                                  [cache]",
	)
	if strings.Contains(out, "Note:") {
		t.Error("a CPU-specific driver got the generic-driver note")
	}
}

// Real QEMU Cortex-A7 guest (ARMv7 driver armv7_cortex_a7).
func TestListOnQEMUCortexA7(t *testing.T) {
	onHost(t, "qemu-a7")
	out, errs, code := runPMC("list", "hw")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, out,
		"CPU:      Arm implementer 0x41 part 0xc07 (cpuinfo architecture 7)",
		"Core PMU: armv7_cortex_a7",
		"cpu-cycles OR cycles                       [hardware] = CPU_CYCLES_CCNT (0xff)",
		"cache-misses                               [hardware] = L1D_CACHE_REFILL (0x03)",
		"bus-cycles                                 [hardware] = BUS_CYCLES (0x1d)",
	)
	checkGolden(t, "qemu-a7-hw.golden", out)
}

func TestListPatterns(t *testing.T) {
	onHost(t, "x86-vm")
	out, _, code := runPMC("list", "--json", "*tlb*")
	if code != 0 {
		t.Fatal(out)
	}
	l := decodeList(t, out)
	if len(l.Events) == 0 {
		t.Fatal("no TLB events")
	}
	for _, e := range l.Events {
		if !strings.Contains(strings.ToLower(e.Name), "tlb") {
			t.Errorf("%s matched *tlb*", e.Name)
		}
	}
	out, _, _ = runPMC("list", "--json", "sw")
	if l := decodeList(t, out); len(l.Events) != 12 {
		t.Errorf("sw: %d events", len(l.Events))
	}
	out, _, _ = runPMC("list", "--json", "sched:*")
	if l := decodeList(t, out); len(l.Events) != 3 {
		t.Errorf("sched:*: %d tracepoints, want 3", len(l.Events))
	}
	_, errs, code := runPMC("list", "zzz")
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `no event matches "zzz"`) {
		t.Errorf("no match: exit %d, %q", code, errs)
	}
	_, errs, code = runPMC("list", "--cpu", "cortex-z9")
	if code != 1 || !strings.Contains(errs, "cortex-a7") {
		t.Errorf("bad --cpu: exit %d, %q", code, errs)
	}
}

func TestListEventFile(t *testing.T) {
	onHost(t, "x86-vm")
	out, errs, code := runPMC("list", "--event-file", "../catalog/testdata/extra/perfmon/skylake_core.json", "--json", "mem_load")
	if code != 0 {
		t.Fatal(errs)
	}
	l := decodeList(t, out)
	if len(l.Events) != 2 || l.Events[1].Name != "MEM_LOAD_RETIRED.L1_MISS" || l.Events[1].Code != "0xd1" || l.Events[1].UMask != "0x08" {
		t.Errorf("%+v", l.Events)
	}
	_, errs, code = runPMC("list", "--event-file", filepath.Join(hostsDir, "x86-vm/proc/cpuinfo"))
	if code != 1 || !strings.Contains(errs, "bad event table") {
		t.Errorf("non-JSON event file: exit %d %q", code, errs)
	}
	_, errs, code = runPMC("list", "--event-file", "no/such/file.json")
	if code != 1 || !strings.Contains(errs, "--event-file") {
		t.Errorf("missing event file: exit %d %q", code, errs)
	}
}

// A CPU pmc has no table for, on a machine without readable PMUs: software events still list.
func TestListOnAnUnknownCPU(t *testing.T) {
	onHost(t, "riscv")
	out, errs, code := runPMC("list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	mustContain(t, out, "CPU:      unidentified (cannot identify the CPU", "Table:    none for this CPU", "task-clock",
		"unknown CPU: no event table (use --cpu)")
	_, errs, code = runPMC("explain", "cache-misses")
	if code != 1 || !strings.Contains(errs, "name one with --cpu") {
		t.Errorf("explain without a table: exit %d %q", code, errs)
	}
	out, _, code = runPMC("list", "--cpu", "help")
	if code != 0 || strings.Count(out, "\n") != 18 || !strings.Contains(out, "cortex-a7") {
		t.Errorf("--cpu help: %q", out)
	}
}

// hostsDir holds the machine snapshots (the machine model's test data).
var hostsDir = filepath.Join("..", "host", "testdata", "hosts")

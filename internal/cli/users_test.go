package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// These tests reproduce what perf and rpistat users hit in pmc (issue 15), one each.

// TestReportFileForms: --report FILE (with a space) writes FILE, with or without -- and with
// flags after it, as --report=FILE does; it ran FILE as the command (exit 127). pmc says
// where the report went.
func TestReportFileForms(t *testing.T) {
	dir := t.TempDir()
	for i, form := range [][]string{
		{"--report", "%s", "--"},
		{"--report", "%s", "-e", "task-clock", "--"},
		{"--report", "%s"},
		{"--report=%s"},
	} {
		path := filepath.Join(dir, strings.Repeat("r", i+1)+".txt")
		args := []string{"stat", "--fake", "testdata/fake/pmu.json"}
		for _, a := range form {
			args = append(args, strings.ReplaceAll(a, "%s", path))
		}
		args = append(args, "true")
		_, errs, code := runPMC(args...)
		if _, err := os.Stat(path); code != 0 || err != nil || !strings.Contains(errs, "report written to "+path) {
			t.Errorf("%v: exit %d, %v:\n%s", form, code, err, errs)
		}
	}
	// --report alone before a command: the default file, and the command runs.
	t.Chdir(dir)
	if _, errs, code := runPMC("stat", "--fake", filepath.Join(origDir, "testdata/fake/pmu.json"), "--report", "true"); code != 0 || !strings.Contains(errs, "report written to pmc-report.txt") {
		t.Errorf("--report alone: exit %d\n%s", code, errs)
	}
}

// TestListFixes (issue 15 item 7): `pmc list tracepoint` lists them (it failed although the
// help names the category); --cpu X shows that CPU only (no host sysfs events or
// tracepoints, no "not available here" on every row); the counters are shown; table rows are
// sorted by code.
func TestListFixes(t *testing.T) {
	onHost(t, "x86-vm")
	out, errs, code := runPMC("list", "tracepoint")
	if code != 0 || !strings.Contains(out, "sched:sched_switch") {
		t.Errorf("list tracepoint: exit %d %s\n%s", code, errs, out)
	}
	out, _, _ = runPMC("list", "--cpu", "cortex-a7")
	for _, bad := range []string{"msr/tsc/", "Tracepoints", "not available here"} {
		if strings.Contains(out, bad) {
			t.Errorf("--cpu cortex-a7 shows %q of this host:\n%s", bad, out)
		}
	}
	mustContain(t, out, "Counters: 4 + cycle counter", "Browsing: cortex-a7's table, not this machine's CPU")
	out, _, _ = runPMC("list", "--cpu", "cortex-a5", "table")
	var codes []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "[0x"); i > 0 {
			codes = append(codes, l[i:])
		}
	}
	if len(codes) < 30 || !slices.IsSorted(codes) {
		t.Errorf("cortex-a5 table rows not sorted by code: %v", codes)
	}
	mustContain(t, out, "Counters: 2 + cycle counter")
}

// TestExplainDidYouMean (item 8): explain does not silently turn the seed's
// L1-icode-load-misses into L1-icache-load-misses, and suggests like pmc stat does.
func TestExplainDidYouMean(t *testing.T) {
	for name, want := range map[string]string{
		"L1-icode-load-misses": "did you mean: L1-icache-load-misses?",
		"cache-mises":          "did you mean: cache-misses?",
	} {
		_, errs, code := runPMC("explain", name, "--cpu", "cortex-a7")
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("explain %s: exit %d %q", name, code, errs)
		}
	}
}

// TestPerfStatFlags (issue 15 item 12): the perf stat flags users type. -c is no longer
// --no-scale (pmc record's -c is a sample period); -j/--json-output (perf's JSON), -B, -d, -n, --timeout,
// --pre/--post and -t work as in perf; --list-metrics --cpu NAME lists that CPU's metrics.
func TestPerfStatFlags(t *testing.T) {
	fake := []string{"stat", "--fake", "testdata/fake/pmu.json"}
	if _, errs, code := runPMC(append(fake, "-c", "--", "true")...); code != 1 || !strings.Contains(errs, "--no-scale prints raw counts") {
		t.Errorf("-c: exit %d\n%s", code, errs)
	}
	// -j is perf's JSON (issue 29): a line per counter with perf's keys; --json is pmc's.
	for _, j := range []string{"-j", "--json-output"} {
		_, errs, code := runPMC(append(fake, j, "-e", "cycles,instructions", "--", "true")...)
		want := `{"counter-value" : "2400000000.000000", "unit" : "", "event" : "cycles", "event-runtime" : `
		if code != 0 || !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 2 {
			t.Errorf("%s: exit %d\n%s", j, code, errs)
		}
	}
	if _, errs, code := runPMC(append(fake, "--json", "--", "true")...); code != 0 || !strings.Contains(errs, `"schema": "pmc.stat/v1"`) {
		t.Errorf("--json: exit %d\n%s", code, errs)
	}
	_, errs, _ := runPMC(append(fake, "-B", "-e", "cycles,instructions", "--", "true")...)
	mustContain(t, errs, "2,400,000,000      cycles", "3,000,000,000      instructions")
	_, errs, _ = runPMC("stat", "--dry-run", "-ddd", "-e", "task-clock", "--", "true")
	var got []string
	for _, l := range strings.Split(errs, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "event" {
			got = append(got, strings.Trim(f[1], `"`))
		}
	}
	want := []string{"task-clock", "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses",
		"L1-icache-loads", "L1-icache-load-misses", "dTLB-loads", "dTLB-load-misses", "iTLB-loads", "iTLB-load-misses",
		"L1-dcache-prefetches", "L1-dcache-prefetch-misses"}
	if !slices.Equal(got, want) {
		t.Errorf("-ddd -e task-clock events:\n got %v\nwant %v", got, want)
	}
	out, errs, code := runPMC("stat", "--list-metrics", "--cpu", "cortex-a7")
	if code != 0 || !strings.Contains(out, "architecture armv7") || !strings.Contains(out, "Cortex-A7") {
		t.Errorf("--list-metrics --cpu cortex-a7: exit %d %s\n%s", code, errs, out)
	}
	for _, bad := range [][]string{{"-n", "-e", "task-clock"}, {"--timeout", "0"}, {"--timeout", "10", "--duration", "1s"}, {"-t", "1", "-p", "1"}, {"--pre", ""}} {
		if _, errs, code := runPMC(append(append([]string{"stat"}, bad...), "--", "true")...); code != 1 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, want one line:\n%s", bad, code, errs)
		}
	}
}

// TestPerfStatFlagsReal: -n counts nothing and prints the time; --timeout ends the command
// (exit 0, as perf); --pre and --post run around every run, warmups included, in order;
// -t counts the one thread and says "thread id".
func TestPerfStatFlagsReal(t *testing.T) {
	_, errs, code := runPMC("stat", "-n", "-r", "2", "--", "true")
	if code != 0 || !strings.Contains(errs, "seconds time elapsed") || strings.Contains(errs, "task-clock") {
		t.Errorf("-n: exit %d\n%s", code, errs)
	}
	_, errs, code = runPMC("stat", "--timeout", "200", "-e", "task-clock", "--", "sleep", "5")
	if code != 0 || !strings.Contains(errs, "task-clock") {
		t.Errorf("--timeout 200 -- sleep 5: exit %d\n%s", code, errs)
	}
	log := filepath.Join(t.TempDir(), "log")
	_, errs, code = runPMC("stat", "--warmup", "1", "-r", "2", "-e", "task-clock",
		"--pre", "echo pre >> "+log, "--post", "echo post >> "+log, "--", "sh", "-c", "echo run >> "+log)
	data, _ := os.ReadFile(log)
	if want := strings.Repeat("pre\nrun\npost\n", 3); code != 0 || string(data) != want {
		t.Errorf("--pre/--post: exit %d, log %q, want %q\n%s", code, data, want, errs)
	}
	if _, errs, code = runPMC("stat", "--post", "exit 3", "-r", "3", "-e", "task-clock", "--", "true"); code != 1 || !strings.Contains(errs, `--post "exit 3": exit status 3`) {
		t.Errorf("failing --post: exit %d\n%s", code, errs)
	}
	sleeper := exec.Command("sleep", "10")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	_, errs, code = runPMC("stat", "-t", strconv.Itoa(sleeper.Process.Pid), "-e", "task-clock", "--duration", "200ms")
	if code != 0 || !strings.Contains(errs, "thread id '"+strconv.Itoa(sleeper.Process.Pid)+"'") {
		t.Errorf("-t: exit %d\n%s", code, errs)
	}
}

// TestMachineIdentity (issue 15 item 11): stat JSON names the machine, the date, pmc's
// version and command line; `pmc --version` and `pmc version` print the version.
func TestMachineIdentity(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, _, code := runPMC(args...)
		if code != 0 || !strings.HasPrefix(out, "pmc "+release) {
			t.Errorf("%v: exit %d %q", args, code, out)
		}
	}
	r, code := pmcJSON(t, "-e", "task-clock", "--", "true")
	host, _ := os.Hostname()
	date, err := time.Parse(time.RFC3339, r.Date)
	m := machine()
	if code != 0 || r.Machine == nil || r.Machine.Host != host || r.Machine.Kernel != m.Kernel || r.Machine.CPUs != m.Processors ||
		r.Machine.CPUID != m.CPU.String() || r.Machine.PMU != m.PMULine() || err != nil || time.Since(date) > time.Minute ||
		!strings.HasPrefix(r.PMCVersion, release) || !slices.Contains(r.PMCCommand, "task-clock") {
		t.Errorf("exit %d, machine %+v date %q version %q command %q", code, r.Machine, r.Date, r.PMCVersion, r.PMCCommand)
	}
	// Recorded facts name their machine: a Cortex-A7 board's file says so.
	_, errs, _ := runPMC("stat", "--fake", "testdata/fake/pmu.json", "--fake-machine", "testdata/fake/machine-cortex-a7.json", "--json", "--", "true")
	mustContain(t, errs, `"cpu": "Arm Cortex-A7 (ARMv7-A; Raspberry Pi 2)"`, `"pmu": "armv7_cortex_a7, 4 general counters + cycle counter`)
}

// TestSeedMetrics (issue 15 item 13): the Cortex-A7 seed's dTLB miss ratio
// (dTLB-load-misses / cache-references), and a report that starts with CPI and IPC when
// -e instructions,cycles is all it has (it showed IPC alone) and has a TLB section.
func TestSeedMetrics(t *testing.T) {
	a7 := []string{"stat", "--fake", "testdata/fake/a7-tlb.json", "--fake-machine", "testdata/fake/machine-cortex-a7.json"}
	_, errs, code := runPMC(append(a7, "-M", "dtlb_miss_ratio", "--json", "--", "./a")...)
	var r result.Stat
	err := json.Unmarshal([]byte(errs), &r)
	if code != 0 || err != nil {
		t.Fatalf("exit %d %v\n%s", code, err, errs)
	}
	var got float64
	for _, m := range r.Metrics {
		if m.Name == "dtlb_miss_ratio" {
			got = m.Value
		}
	}
	if math.Abs(got-0.075) > 1e-12 {
		t.Errorf("A7 dtlb_miss_ratio = %v, want 150000 / 200000000 = 0.075%%", got)
	}
	report := filepath.Join(t.TempDir(), "r.txt")
	if _, errs, code = runPMC(append(a7, "-e", "instructions,cycles", "--report="+report, "--", "./a")...); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	data, _ := os.ReadFile(report)
	cpi, ipc := strings.Index(string(data), "    cpi "), strings.Index(string(data), "    ipc ")
	if cpi < 0 || ipc < cpi || !strings.Contains(string(data), "2.000  cycles per insn") {
		t.Errorf("report metrics do not start with CPI 2.000 then IPC:\n%s", data)
	}
	if _, errs, code = runPMC(append(a7, "--report="+report, "--", "./a")...); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	data, _ = os.ReadFile(report)
	mustContain(t, string(data), "\n  TLB\n", "dtlb_miss_ratio")
}

// TestPMCHeaderEvents (issue 15 item 15): include/pmc.h takes hardware cache names, raw codes
// and the CPU's table names (pmc list --cpu cortex-a7 --c-header), compiles as C11 with
// -pedantic and as C++ without warnings and links without -lm; pmc show --csv of its file
// keeps the region.
func TestPMCHeaderEvents(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := runPMC("list", "--cpu", "cortex-a7", "--c-header")
	if code != 0 {
		t.Fatalf("--c-header: exit %d %s", code, errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "pmc_events.h"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	src, _ := filepath.Abs("testdata/pmch/events.c")
	inc, _ := filepath.Abs("../../include")
	for _, c := range [][]string{
		{"cc", "-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-x", "c"},
		{"c++", "-std=c++17", "-pedantic", "-Wall", "-Wextra", "-Werror", "-x", "c++"},
	} {
		testenv.Tool(t, c[0])
		exe := filepath.Join(dir, "events-"+c[0])
		if b, err := exec.Command(c[0], append(c[1:], "-I", dir, "-I", inc, "-o", exe, src)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, b)
		}
		js := exe + ".json"
		if b, err := exec.Command(exe, js).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", exe, err, b)
		}
		data, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var r result.Stat
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		got := map[string]string{}
		for _, cnt := range r.Runs[0].Counts {
			got[cnt.Event] = fmt.Sprintf("%d:%#x", cnt.Encoding.Type, cnt.Encoding.Config)
		}
		want := map[string]string{"task-clock": "1:0x1", "L1-dcache-load-misses": "3:0x10000", "dTLB-loads:u": "3:0x3",
			"LLC-misses": "3:0x10002", "r11": "4:0x11", "INST_RETIRED": "4:0x8", "l1d_cache_refill:u": "4:0x3"}
		for ev, enc := range want {
			if got[ev] != enc {
				t.Errorf("%s: %s encodes %s, want %s", c[0], ev, got[ev], enc)
			}
		}
		if c[0] == "cc" {
			syms, _ := exec.Command("nm", "-u", exe).CombinedOutput()
			for _, libm := range []string{"sqrt", "fmax"} {
				if strings.Contains(string(syms), " "+libm) {
					t.Errorf("%s still needs -lm (%s)", exe, libm)
				}
			}
			csvOut, errs, code := runPMC("show", "--csv", js)
			rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
			if code != 0 || err != nil || len(rows) < 2 || rows[0][0] != "region" || rows[1][0] != "work" {
				t.Errorf("show --csv: exit %d %v %s\n%s", code, err, errs, csvOut)
			}
		}
	}
}

// TestDelayAndCgroup (issue 15 item 12): -D starts counting after the delay (a command that
// ends sooner is <not counted>, and pmc does not wait for the delay's end); -G NAME counts
// only the tasks of that cgroup, named relative to the cgroup v2 mount: the loop run in it,
// not the one run beside it.
func TestDelayAndCgroup(t *testing.T) {
	start := time.Now()
	_, errs, code := runPMC("stat", "-D", "60000", "-e", "task-clock", "--", "sleep", "0.1")
	if took := time.Since(start); code != 0 || !strings.Contains(errs, "<not counted> msec task-clock") || took > 30*time.Second {
		t.Errorf("-D 60000 -- sleep 0.1: exit %d after %v\n%s", code, took, errs)
	}
	r, code := pmcJSON(t, "-D", "50", "-e", "task-clock", "--", "sleep", "0.5")
	if code != 0 || summary(t, r, "task-clock").Status != result.Counted {
		t.Errorf("-D 50 -- sleep 0.5: exit %d %+v", code, r.Summary)
	}
	if _, errs, code := runPMC("stat", "-D", "10", "-a", "-e", "task-clock", "--duration", "10ms"); code != 1 || !strings.Contains(errs, "it needs a command") {
		t.Errorf("-D with -a and no command: exit %d %s", code, errs)
	}

	mount, err := machine().Cgroup2Mount()
	name := fmt.Sprintf("pmc-G-test-%d", os.Getpid())
	dir := testenv.Cgroup(t, name, mount, err)
	loop := workload(t, "loop")
	out := filepath.Join(t.TempDir(), "g.json")
	cmd := pmcCmd(t, "stat", "--json", "-o", out, "-a", "-G", name, "-e", "task-clock", "--", "sh", "-c",
		fmt.Sprintf("%s 0200000000; %s", loop, strings.Join(testenv.InCgroup(dir, loop, "0200000000")[2:], " ")))
	start = time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	data, _ := os.ReadFile(out)
	var g result.Stat
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	// Both loops do the same work; the cgroup's task-clock covers one of them: at most
	// about half of the CPU time the whole command used (wait4's user+sys covers both).
	tc := summary(t, &g, "task-clock").Mean / 1e9
	both := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if g.Cgroup != dir || tc <= 0 || tc > 0.7*both.Seconds() || tc < 0.3*both.Seconds() {
		t.Errorf("-G %s: cgroup %q task-clock %.3fs, both loops %.3fs CPU in %v", name, g.Cgroup, tc, both.Seconds(), time.Since(start))
	}
}

// TestPerSocket (issue 15 item 12): --per-socket sums every CPU of a socket: here one socket
// whose cpu-clock is the -a total, the number of CPUs times the time the counters were
// enabled: at least the duration, at most the wall time around pmc's run.
func TestPerSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("system-wide counting needs root")
	}
	wall0 := time.Now()
	r, code := pmcJSON(t, "-a", "--per-socket", "-e", "cpu-clock", "--duration", "300ms")
	wall := time.Since(wall0).Seconds()
	n := len(machine().PMUs.Online)
	if code != 0 || r.Aggregation == nil || len(r.Summary) == 0 {
		t.Fatalf("exit %d %+v", code, r)
	}
	cpus, sum, enabled := 0, 0.0, 0.0
	for _, g := range r.Aggregation.Groups {
		cpus += len(g.CPUs)
	}
	for _, s := range r.Summary {
		sum, enabled = sum+s.Mean, enabled+float64(s.Enabled)
	}
	if cpus != n || math.Abs(sum-enabled) > 0.01*enabled || enabled < float64(n)*0.3e9 || enabled > float64(n)*wall*1e9 {
		t.Errorf("%d CPUs in the groups (online %d); cpu-clock %.0f ns, enabled %.0f ns; want %d x 0.3 s to %.3f s",
			cpus, n, sum, enabled, n, wall)
	}
	_, errs, _ := runPMC("stat", "-a", "--per-core", "-e", "cpu-clock", "--duration", "100ms")
	mustContain(t, errs, "S0-D0-C0        1 ")
	for _, bad := range [][]string{{"--per-core", "--", "true"}, {"-a", "-A", "--per-socket", "--duration", "1ms"}} {
		if _, errs, code := runPMC(append([]string{"stat"}, bad...)...); code != 1 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d\n%s", bad, code, errs)
		}
	}
}

// TestPerThread (issue 15 item 12): --per-thread with -p counts each thread of the process on
// its own row, labelled comm-tid as perf does: the two spinning threads each have their own
// task-clock, the idle main thread none (<not counted>: it never ran while counted).
func TestPerThread(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	cmd := exec.Command(py, "-c", `
import threading, time
def spin():
    t = time.time()
    while time.time() - t < 4: pass
ts = [threading.Thread(target=spin) for _ in range(2)]
[t.start() for t in ts]
print("ready", flush=True)
[t.join() for t in ts]`)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 6)
	if _, err := io.ReadFull(out, buf); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	// Each thread's own CPU time (schedstat: ns on the CPU) around pmc's run is the truth its
	// task-clock row must not exceed; a tick's lag of the running threads' figure allowed.
	before := threadCPU(t, pid)
	r, code := pmcJSON(t, "-p", pid, "--per-thread", "-e", "task-clock", "--duration", "300ms")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	after := threadCPU(t, pid)
	var spin []float64
	idle := -1.0
	for _, s := range r.Summary {
		if !strings.HasPrefix(s.Thread, "python3-") || s.Thread != "python3-"+strconv.Itoa(s.TID) {
			t.Errorf("row %+v: want a python3-TID label", s)
		}
		if s.Status != result.Counted {
			// perf too prints <not counted> for a thread that never ran while attached.
			if s.TID != cmd.Process.Pid || s.Reason != result.NeverRan {
				t.Errorf("row %+v: not counted", s)
			}
			idle = 0
			continue
		}
		truth := float64(after[s.TID] - before[s.TID])
		t.Logf("%s: task-clock %.1f ms, the thread's CPU time around the run %.1f ms", s.Thread, s.Mean/1e6, truth/1e6)
		if s.Mean > truth+20e6 {
			t.Errorf("%s: task-clock %.1f ms, more than the thread ran (%.1f ms)", s.Thread, s.Mean/1e6, truth/1e6)
		}
		if s.TID == cmd.Process.Pid {
			idle = s.Mean
		} else {
			spin = append(spin, s.Mean)
		}
	}
	// Loaded 10x, each spinner still gets milliseconds of a 300 ms window; the main thread,
	// blocked in join, next to nothing (or never runs: not counted).
	if len(r.Summary) != 3 || len(spin) != 2 || idle < 0 || min(spin[0], spin[1]) < 1e6 || idle >= min(spin[0], spin[1]) {
		t.Errorf("rows %+v: want 3, the two spinning threads over 1 ms each and above the idle main thread", r.Summary)
	}
	if _, errs, code := runPMC("stat", "--per-thread", "-e", "task-clock", "--", "true"); code != 1 || !strings.Contains(errs, "add -p") {
		t.Errorf("--per-thread without -p: exit %d %s", code, errs)
	}
}

// threadCPU is each thread of pid's time on the CPU in ns (/proc/PID/task/TID/schedstat).
func threadCPU(t *testing.T, pid string) map[int]uint64 {
	t.Helper()
	dir := filepath.Join("/proc", pid, "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]uint64{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		tid, terr := strconv.Atoi(e.Name())
		if err != nil || terr != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			m[tid], _ = strconv.ParseUint(f[0], 10, 64)
		}
	}
	return m
}

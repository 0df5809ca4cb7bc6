package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/stat"
)

// These tests count for real on this machine and compare with perf stat (software events:
// hardware ones are <not supported> on our VMs; the QEMU suite covers those).

func needPerf(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("perf is not installed; scripts/deps.sh installs linux-perf")
		}
		t.Skip("perf not installed")
	}
}

// pmcJSON runs pmc stat in-process with --json -o and decodes the Result.
func pmcJSON(t *testing.T, args ...string) (*stat.Result, int) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	full := append([]string{"stat", "--json", "-o", out}, args...)
	var stdout, stderr bytes.Buffer
	code := Run(full, &stdout, &stderr)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("pmc %v: exit %d, no output file: %v\n%s", full, code, err, stderr.String())
	}
	var r stat.Result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r, code
}

func summary(t *testing.T, r *stat.Result, event string) stat.Summary {
	t.Helper()
	for _, s := range r.Summary {
		if s.Event == event {
			return s
		}
	}
	t.Fatalf("no %q in %+v", event, r.Summary)
	return stat.Summary{}
}

// perfStat runs perf stat -x, and returns event -> value (msec for clocks, as perf prints).
func perfStat(t *testing.T, args ...string) map[string]float64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), "perf.csv")
	cmd := exec.Command("perf", append([]string{"stat", "-x,", "-o", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("perf: %v\n%s", err, b)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil || len(rec) < 3 {
			continue
		}
		if v, err := strconv.ParseFloat(rec[0], 64); err == nil {
			vals[rec[2]] = v
		}
	}
	return vals
}

func within(got, want, frac float64) bool {
	return math.Abs(got-want) <= frac*math.Abs(want)
}

// TestPageFaultsMatchPerf: page-faults of /bin/true and of a dd run, mean of 60 runs each,
// agree with perf stat within 1%. Single runs vary by a few faults (address-space layout),
// and perf 6.1's -r prints the last run rather than the mean, so perf runs are averaged here.
func TestPageFaultsMatchPerf(t *testing.T) {
	needPerf(t)
	const n = 60
	evs := []string{"page-faults", "minor-faults", "major-faults"}
	for _, cmd := range [][]string{
		{"/bin/true"},
		{"dd", "if=/dev/zero", "of=/dev/null", "bs=1M", "count=32", "status=none"},
	} {
		r, code := pmcJSON(t, append([]string{"-r", strconv.Itoa(n), "-e", strings.Join(evs, ","), "--"}, cmd...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d", cmd, code)
		}
		perf := map[string]float64{}
		for i := 0; i < n; i++ {
			for ev, v := range perfStat(t, append([]string{"-e", strings.Join(evs, ","), "--"}, cmd...)...) {
				perf[ev] += v / n
			}
		}
		for _, ev := range evs[:2] {
			got := summary(t, r, ev).Mean
			if got < 10 || !within(got, perf[ev], 0.01) {
				t.Errorf("%v %s: pmc %.2f, perf %.2f (want within 1%%)", cmd, ev, got, perf[ev])
			} else {
				t.Logf("%v %s: pmc %.2f, perf %.2f", cmd, ev, got, perf[ev])
			}
		}
		// Major faults depend on the page cache at that moment: rare, and equal up to one.
		if got := summary(t, r, "major-faults").Mean; math.Abs(got-perf["major-faults"]) > 1 {
			t.Errorf("%v major-faults: pmc %.2f, perf %.2f", cmd, got, perf["major-faults"])
		}
	}
}

// interleaved runs pmc and perf alternately n times on the same command and returns the
// per-run values of each event, so that load changes on a shared machine hit both alike.
func interleaved(t *testing.T, n int, pmcArgs, events []string, cmd ...string) (pmc, perf map[string][]float64) {
	t.Helper()
	pmc, perf = map[string][]float64{}, map[string][]float64{}
	ev := strings.Join(events, ",")
	for i := 0; i < n; i++ {
		r, _ := pmcJSON(t, append(append(append([]string{}, pmcArgs...), "-e", ev, "--"), cmd...)...)
		p := perfStat(t, append(append(append([]string{}, pmcArgs...), "-e", ev, "--"), cmd...)...)
		for _, e := range events {
			v := summary(t, r, e).Mean
			if e == "task-clock" {
				v /= 1e6 // perf prints msec
			}
			pmc[e] = append(pmc[e], v)
			perf[e] = append(perf[e], p[e])
		}
	}
	return pmc, perf
}

func median(xs []float64) float64 {
	s := append([]float64{}, xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestTaskClockMatchesPerf: a CPU-bound run reads the same task-clock under pmc and perf.
// On these VMs the same loop takes either ~33 or ~70 ms depending on what the host runs
// beside it, so medians can land on different modes: the fastest of 9 interleaved runs,
// the run with the least interference, must agree within 10%.
func TestTaskClockMatchesPerf(t *testing.T) {
	needPerf(t)
	pmc, perf := interleaved(t, 9, nil, []string{"task-clock"}, workload(t, "loop"), "0100000000")
	got, want := slices.Min(pmc["task-clock"]), slices.Min(perf["task-clock"])
	if got < 10 || !within(got, want, 0.1) {
		t.Errorf("fastest task-clock: pmc %.3f ms, perf %.3f ms (want within 10%%); pmc %v perf %v",
			got, want, pmc["task-clock"], perf["task-clock"])
	}
	t.Logf("fastest task-clock: pmc %.3f ms, perf %.3f ms (medians %.3f, %.3f)", got, want,
		median(pmc["task-clock"]), median(perf["task-clock"]))
}

// TestInheritChildrenAndThreads: a workload that forks processes which start threads is
// counted whole (as perf counts it) and, with --no-inherit, only its first thread.
func TestInheritChildrenAndThreads(t *testing.T) {
	needPerf(t)
	cmd := []string{workload(t, "forkthreads"), "--procs", "3", "--threads", "2", "--work", "20000000"}
	evs := []string{"task-clock", "page-faults"}
	pmc, perf := interleaved(t, 5, nil, evs, cmd...)
	pmcNo, perfNo := interleaved(t, 5, []string{"--no-inherit"}, evs, cmd...)
	tc, tcNo := median(pmc["task-clock"]), median(pmcNo["task-clock"])
	pf, pfNo := median(pmc["page-faults"]), median(pmcNo["page-faults"])
	t.Logf("inherit: task-clock %.1f ms (perf %.1f), page-faults %.0f (perf %.0f)", tc, median(perf["task-clock"]), pf, median(perf["page-faults"]))
	t.Logf("no-inherit: task-clock %.1f ms (perf %.1f), page-faults %.0f (perf %.0f)", tcNo, median(perfNo["task-clock"]), pfNo, median(perfNo["page-faults"]))
	// 4 processes x 3 threads each do the same work: the whole is 12 units, the first thread
	// 1 unit plus forking and waiting. Without inheritance the two would be about equal.
	if tc < 4*tcNo {
		t.Errorf("inherited task-clock %.1f ms is not several times the first thread's %.1f ms", tc, tcNo)
	}
	// CPU time of 12 threads on 2 shared vCPUs moves with the load from other jobs (seen:
	// 20%); the exact check of inheritance is page-faults below.
	if p := median(perf["task-clock"]); !within(tc, p, 0.3) {
		t.Errorf("inherited task-clock medians: pmc %.1f ms, perf %.1f ms (want within 30%%)", tc, p)
	}
	if p := median(perf["page-faults"]); !within(pf, p, 0.05) {
		t.Errorf("inherited page-faults: pmc %.0f, perf %.0f (want within 5%%)", pf, p)
	}
	if p := median(perfNo["page-faults"]); !within(pfNo, p, 0.05) {
		t.Errorf("no-inherit page-faults: pmc %.0f, perf %.0f (want within 5%%)", pfNo, p)
	}
}

// TestExitStatuses: pmc exits with the workload's status, shell-style, and still prints the
// counts of a workload that was killed.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "data.txt")
	os.WriteFile(notExec, []byte("x"), 0o644)
	cases := []struct {
		cmd    []string
		code   int
		counts bool
	}{
		{[]string{"/bin/true"}, 0, true},
		{[]string{"sh", "-c", "exit 3"}, 3, true},
		{[]string{"sh", "-c", "kill -9 $$"}, 137, true},
		{[]string{"sh", "-c", "kill -TERM $$"}, 143, true},
		{[]string{"no-such-command-pmc"}, 127, false},
		{[]string{notExec}, 126, false},
		{[]string{dir}, 126, false},
	}
	for _, c := range cases {
		cmd := pmcCmd(t, append([]string{"stat", "-e", "task-clock", "--"}, c.cmd...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s", c.cmd, code, c.code, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "task-clock"); got != c.counts {
			t.Errorf("%v: counts printed = %v, want %v\n%s", c.cmd, got, c.counts, stderr.String())
		}
		if !c.counts && !strings.Contains(stderr.String(), "pmc: ") {
			t.Errorf("%v: no error message\n%s", c.cmd, stderr.String())
		}
	}
}

// TestInterrupt: SIGINT to pmc while the workload runs ends the workload (130), and pmc still
// prints and writes the counts so far.
func TestInterrupt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	cmd := pmcCmd(t, "stat", "--json", "-o", out, "-e", "task-clock,context-switches", "--", "sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("pmc took %v to finish after SIGINT", d)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130", err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r stat.Result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.ExitStatus != 130 || len(r.Runs) != 1 || r.Runs[0].Signal != "SIGINT" {
		t.Errorf("result: exit %d, runs %d, signal %q", r.ExitStatus, len(r.Runs), r.Runs[0].Signal)
	}
	// SIGINT came 0.3 s after pmc started; the workload's clock starts at its exec, after
	// pmc's and the shim's own start-up.
	if el := r.Runs[0].ElapsedSec; el < 0.1 || el > 3 {
		t.Errorf("elapsed %.3f s, want a little under 0.3 s", el)
	}
	if s := summary(t, &r, "context-switches"); s.Status != stat.Counted || s.Mean < 1 {
		t.Errorf("sleep must have switched out at least once: %+v", s)
	}
}

// TestAttachAndSystemWide: -p counts a running process for --duration; -a counts every CPU.
func TestAttachAndSystemWide(t *testing.T) {
	busy := exec.Command(workload(t, "loop"), "4000000000")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { busy.Process.Kill(); busy.Wait() }()
	time.Sleep(50 * time.Millisecond)
	r, code := pmcJSON(t, "-p", strconv.Itoa(busy.Process.Pid), "--duration", "400ms", "-e", "task-clock")
	if code != 0 {
		t.Fatalf("attach exit %d", code)
	}
	tc := summary(t, r, "task-clock").Mean / 1e9
	if tc < 0.05 || tc > r.ElapsedSec*1.05 || r.ElapsedSec < 0.39 || r.ElapsedSec > 1.5 {
		t.Errorf("attach: task-clock %.3f s over %.3f s elapsed (a busy process on a shared machine)", tc, r.ElapsedSec)
	}
	t.Logf("attach: task-clock %.3f s over %.3f s", tc, r.ElapsedSec)

	ncpu := len(mustCPUs(t))
	r, code = pmcJSON(t, "-a", "-A", "--duration", "300ms", "-e", "cpu-clock")
	if code != 0 {
		t.Fatalf("system-wide exit %d", code)
	}
	if len(r.Summary) != ncpu {
		t.Fatalf("-A: %d rows, want one per CPU (%d)", len(r.Summary), ncpu)
	}
	for _, s := range r.Summary {
		// cpu-clock counts wall time on each CPU, idle included.
		if sec := s.Mean / 1e9; !within(sec, r.ElapsedSec, 0.1) {
			t.Errorf("CPU%d cpu-clock %.3f s over %.3f s elapsed", s.CPU, sec, r.ElapsedSec)
		}
	}
}

func mustCPUs(t *testing.T) []int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		t.Fatal(err)
	}
	cpus, err := stat.ParseCPUList(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return cpus
}

// TestIntervalsReal: -I prints deltas while the workload runs; they add up to the total.
func TestIntervalsReal(t *testing.T) {
	r, code := pmcJSON(t, "-I", "100", "-e", "task-clock", "--", "sh", "-c", "sleep 0.35")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// One interval per full 100 ms of the run, plus the partial one at the end.
	el := r.Runs[0].ElapsedSec
	if n, want := len(r.Intervals), int(el/0.1); n < 3 || n < want || n > want+1 {
		t.Fatalf("%d intervals for a %.3f s run at 100 ms", n, el)
	}
	var sum uint64
	for _, iv := range r.Intervals {
		sum += iv.Counts[0].Raw
	}
	if total := r.Runs[0].Counts[0].Raw; sum != total {
		t.Errorf("interval deltas sum to %d, total is %d", sum, total)
	}
}

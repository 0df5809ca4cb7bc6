package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/statrun"
)

// reportCases run `pmc stat --fake-machine M --fake SPEC ARGS` end to end and compare what pmc
// prints with testdata/metrics/<name>.out and, when report is set, the --report file with
// testdata/report/<name>.txt. The numbers in the goldens are checked by hand in the comments.
var reportCases = []struct {
	name    string
	machine string // testdata/fake/machine-<machine>.json
	fake    string
	args    string
	code    int
	report  bool
}{
	// The rpistat report on an ARM1176 without -e: the "rpistat" metric group, planned into
	// six groups of cycles plus two events that each ran 1/6 of the time (scaled = 6 * raw).
	// Same numbers as the seed's rpistat.txt: CPI 11759598288/1241209260 = 9.474, IBUF stall
	// 259324218/11759598288 = 2.205%, DC miss ratio 3757584/18343722 = 20.484%, MicroTLB
	// 904896/1241209.26 = 0.729 PTI, Main TLB 696012/1241209.26 = 0.561 PTI, branch rate
	// 134550816/1241209.26 = 108.403 PTI, mispredict ratio 1474254/134550816 = 1.096%. Unlike
	// rpistat, every PTI rate has its instructions in its own group: all "together".
	{"rpistat", "arm1176", "rpistat.json", "--report -- ./naive", 0, true},
	// The default report set on a Cortex-A57 (6 counters): the default, cache and branch
	// metrics planned into two groups that each ran 50% (scaled = 2 * raw), software events
	// 100%. IPC 4e9/3e9 = 1.333; L1D 2e7/1e9 = 2%, 2e7/4e6 = 5 PTI; L1I 2e6/4e6 = 0.5 PTI; LLC
	// 2e6/1e7 = 20%, 0.5 PTI; cache 4e6/4e7 = 10%; branches 5e6/5e8 = 1%, 1.25 and 125 PTI;
	// 3e9 cycles / 2e9 ns task-clock = 1.5 GHz, flagged: cycles ran 50%, task-clock 100%.
	{"a57-default", "cortex-a57", "a57-default.json", "--report -- ./matmul", 0, true},
	// Operands multiplexed apart: instructions ran 50% (scaled 800000000), cycles 100%
	// (600000000): IPC 1.33 NOT together; branch-misses 150000000 at 20% over branches
	// 200000000 at 25%: 75% NOT together. L1-dcache-loads never ran, LLC-loads unsupported.
	{"multiplexed", "cortex-a7", "multiplexed.json", "--report -e cycles,instructions,branches,branch-misses,L1-dcache-loads,LLC-loads -- ./a.out", 0, true},
	// Measured together but impossible: 60000000 misses of 50000000 branches = 120%, and
	// 1000000000 instructions in 400000000 cycles = IPC 2.5 on a Cortex-A7 that issues 2.
	{"implausible", "cortex-a7", "implausible.json", "--report -e {cycles,instructions,branches,branch-misses} -- ./a.out", 0, true},
	// The Cortex-A5 seed: perf printed "878094 branch-misses # 191.03% of all branches" and
	// "293729707 instructions # 12.75 insns per cycle" as facts. Same scaled counts here
	// (874582 * 4346477415 / 4329091505 = 878094.38; 362305 / 0.7882 = 459661.25;
	// 19102483 / 0.8295 = 23028912.6; 293054129 / 0.9977 = 293729707.3): 191.03% and 12.75,
	// flagged as not measured together and implausible on a single-issue core.
	{"cortex-a5", "cortex-a5", "cortex-a5.json", "--report -e task-clock,cycles,instructions,branch-misses,branches -- ./cairo", 0, true},
	// User metrics from a file: 3000000000 instructions / 500000000 branches = 6 exactly;
	// 1000 * 5000000 / 500000000 = 10 mispredicts per 1000 branches; 10 / 1000 * 6 = 0.06.
	{"user-metric", "intel", "pmu.json", "--metrics-file testdata/metrics/user.json -M mine --report -- ./matmul", 0, true},
	// --metric-only: the values of the multiplexed case, l1d_miss_ratio undefined because its
	// planned group never ran (L1-dcache-loads not counted) and its misses are unsupported.
	{"metric-only.txt", "cortex-a7", "multiplexed.json", "--metric-only -M ipc,branch_miss_ratio,l1d_miss_ratio -e cycles,instructions,branches,branch-misses -- ./a.out", 0, false},
	{"metric-only.csv", "cortex-a7", "multiplexed.json", "--metric-only --csv -M ipc,branch_miss_ratio,l1d_miss_ratio -e cycles,instructions,branches,branch-misses -- ./a.out", 0, false},
	{"metric-only.semicolon.csv", "cortex-a7", "multiplexed.json", "--metric-only -x ; -M ipc,branch_miss_ratio -e cycles,instructions,branches,branch-misses -- ./a.out", 0, false},
	{"metric-only.json", "cortex-a7", "multiplexed.json", "--metric-only --json -M ipc,branch_miss_ratio,l1d_miss_ratio -e cycles,instructions,branches,branch-misses -- ./a.out", 0, false},
	// Ctrl-C: the workload ends with SIGINT (exit 130) and the report is still written, from
	// the software events a machine without a PMU counts: 2450 ms task time in 2.5 s = 0.980
	// CPUs, 49 switches / 2.45 s = 20/sec, 2 / 2.45 = 0.816/sec, 1225 / 2.45 = 500/sec.
	{"interrupted", "nopmu", "interrupted.json", "--report -- ./spin", 130, true},
	// A metric needing 3 counters on a 2-counter Cortex-A5: warned before counting, its events
	// counted on their own (each 50% here) and the value flagged: (2000000 + 1000000) /
	// 20000000 = 0.150 NOT together; IPC 400000000 / 500000000 = 0.800 from one group.
	{"unschedulable", "cortex-a5", "wide-a5.json", "--metrics-file testdata/metrics/wide.json -M wide,ipc --report -- ./a.out", 0, true},
	// Repeats (issue 15 item 10): the report ends with the spread over the 3 runs: task-clock
	// 98, 100, 102 ms = mean 100, stddev 2 (2.00%); CPUs utilized 98/99, 100/101, 102/103.
	{"repeat", "nopmu", "repeat.json", "-r 3 --report -e task-clock,page-faults,instructions -- ./loop", 0, true},
	// --list-metrics for the ARM1176: the raw-code formulas and the rpistat group.
	{"list-arm1176", "arm1176", "pmu.json", "--list-metrics", 0, false},
}

// origDir is the package directory, where testdata is, before a test changes directory.
var origDir, _ = os.Getwd()

func TestStatReportGolden(t *testing.T) {
	for _, c := range reportCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"stat", "--fake-machine", filepath.Join("testdata", "fake", "machine-"+c.machine+".json"),
				"--fake", filepath.Join("testdata", "fake", c.fake)}
			rep := filepath.Join(dir, "report.txt")
			for _, a := range strings.Fields(c.args) {
				if a == "--report" {
					a = "--report=" + rep
				}
				args = append(args, a)
			}
			var stdout, stderr bytes.Buffer
			code := testRun(args, &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr.String())
			}
			out := c.name
			if !strings.Contains(out, ".") {
				out += ".out"
			}
			// The report's temporary path is named REPORT in the golden files.
			goldenText(t, filepath.Join("testdata", "metrics", out), strings.ReplaceAll(stdout.String()+stderr.String(), rep, "REPORT"))
			if !c.report {
				return
			}
			data, err := os.ReadFile(rep)
			if err != nil {
				t.Fatalf("no report: %v", err)
			}
			goldenText(t, filepath.Join("testdata", "report", c.name+".txt"), string(data))
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("temporary files left next to the report: %v", ents)
			}
		})
	}
}

// TestPlanGolden: -M on each core plans groups that fit its counters (ARM1176 and Cortex-A5:
// 2 + cycle counter; Cortex-A7: 4; Cortex-A57: 6; Intel assumed 4 + fixed instructions).
func TestPlanGolden(t *testing.T) {
	type plan struct{ machine, args string }
	var plans []plan
	for _, m := range []string{"arm1176", "cortex-a5", "cortex-a7", "cortex-a57", "intel"} {
		for _, ms := range []string{"ipc,l1d_miss_ratio,dtlb_mpki,branch_miss_ratio", "default,cache,branch"} {
			plans = append(plans, plan{m, "-M " + ms})
		}
	}
	plans = append(plans, plan{"arm1176", "-M rpistat"},
		plan{"cortex-a5", "--metrics-file testdata/metrics/wide.json -M wide,ipc"},
		plan{"cortex-a7", "--metrics-file testdata/metrics/wide.json -M wide,ipc"},
		plan{"cortex-a7", "-e cycles,instructions -M ipc,branch_miss_ratio"})
	var b strings.Builder
	for _, p := range plans {
		{
			m, ms := p.machine, p.args
			args := append([]string{"stat", "--fake-machine", filepath.Join("testdata", "fake", "machine-"+m+".json")},
				strings.Fields(ms)...)
			args = append(args, "--dry-run", "--", "./x")
			var stdout, stderr bytes.Buffer
			if code := testRun(args, &stdout, &stderr); code != 0 {
				t.Fatalf("%s %s: exit %d: %s", m, ms, code, stderr.String())
			}
			fmt.Fprintf(&b, "== %s %s\n", m, ms)
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.HasPrefix(l, "metrics ") || strings.HasPrefix(l, "pmc: ") {
					b.WriteString(l + "\n")
				}
			}
		}
	}
	goldenText(t, filepath.Join("testdata", "metrics", "plan.txt"), b.String())
}

// TestCortexA5Pathology states the seed's point without a golden: the numbers perf printed
// as facts are there, and each carries its flags.
func TestCortexA5Pathology(t *testing.T) {
	var stdout, stderr bytes.Buffer
	testRun([]string{"stat", "--fake-machine", "testdata/fake/machine-cortex-a5.json", "--fake", "testdata/fake/cortex-a5.json",
		"-e", "task-clock,cycles,instructions,branch-misses,branches", "--", "./cairo"}, &stdout, &stderr)
	lines := map[string]string{} // an event's row and the note lines under it
	last := ""
	for _, l := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) > 1 && f[0] == "#" && last != "":
			lines[last] += "\n" + l
		case len(f) > 1:
			last = f[1]
			lines[last] = l
		default:
			last = ""
		}
	}
	for ev, want := range map[string][]string{
		"branch-misses": {"878094", "191.03%", "(not measured together)", "!! implausible: 191.03% exceeds 100%"},
		"instructions":  {"293729707", "12.75  insn per cycle", "(not measured together)", "core that issues at most 1"},
		"branches":      {"459661", "(78.82%)"},
		"cycles":        {"23028913", "0.005 GHz", "(82.95%)"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[ev], w) {
				t.Errorf("%s row lacks %q:\n%s", ev, w, lines[ev])
			}
		}
	}
}

// TestReportDefaultFile: --report without a value writes pmc-report.txt in the current
// directory, replacing an old one, and leaves no temporary file.
func TestReportDefaultFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	wd := dir
	if err := os.WriteFile(filepath.Join(wd, statrun.DefaultReportFile), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	testdata, _ := filepath.Abs(filepath.Join(origDir, "testdata"))
	var stdout, stderr bytes.Buffer
	code := testRun([]string{"stat", "--fake-machine", filepath.Join(testdata, "fake", "machine-arm1176.json"),
		"--fake", filepath.Join(testdata, "fake", "rpistat.json"), "--report", "--", "./naive"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(wd, statrun.DefaultReportFile))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(testdata, "report", "rpistat.txt"))
	if !bytes.Equal(got, want) {
		t.Errorf("pmc-report.txt differs from testdata/report/rpistat.txt:\n%s", got)
	}
	if ents, _ := os.ReadDir(wd); len(ents) != 1 {
		t.Errorf("files left behind: %v", ents)
	}
}

// TestMetricFlagErrors: bad metric input is one line naming the fix, exit 1, no panic.
func TestMetricFlagErrors(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"-M nosuch -- ./x", `-M/--metric-group: metrics: no metric or metric group "nosuch"`},
		{"--metric-group nosuch -- ./x", `-M/--metric-group: metrics: no metric or metric group "nosuch"`},
		{"--metrics-file testdata/metrics/typo.json -M typo -- ./x", `-M: metrics: typo: at 11: event instructons: unknown event "instructons" (did you mean: instructions?)`},
		{"--metrics-file testdata/metrics/bad.json -M oops -- ./x", "--metrics-file testdata/metrics/bad.json: metrics: oops: at 25: expected ')'"},
		{"--metrics-file testdata/metrics/missing.json -M ipc -- ./x", "--metrics-file: open testdata/metrics/missing.json"},
		{"--metric-only -I 100 -- ./x", "--metric-only cannot be combined with -I"},
		{"--report --dry-run -- ./x", "--report writes results, --dry-run counts nothing"},
		{"--fake-machine testdata/metrics/user.json -- ./x", "--fake-machine user.json: machine facts: json: cannot unmarshal array"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"stat", "--fake", "testdata/fake/pmu.json"}, strings.Fields(c.args)...)
		if code := testRun(args, &stdout, &stderr); code != 1 {
			t.Errorf("%s: exit %d, want 1", c.args, code)
		}
		msg := stderr.String()
		if !strings.HasPrefix(msg, "pmc: "+c.want) || strings.Count(msg, "\n") != 1 {
			t.Errorf("%s: got %q, want one line starting with %q", c.args, msg, "pmc: "+c.want)
		}
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/compare"
)

// compareEvents has a multiplexed event (instructions ran 50%, branch-misses 20%) and a
// metric whose operands were not measured together (branch_miss_ratio).
const compareEvents = "task-clock,page-faults,cycles,instructions,branches,branch-misses"

func compareFake(names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, "--fake", filepath.Join("testdata", "compare", n))
	}
	return out
}

// compareCases run `pmc compare --fake A --fake B ...` end to end: the runs interleaved
// through stat.Measure, per-run metrics, statistics and the writers.
var compareCases = []struct {
	name  string
	fakes []string
	args  []string
	code  int
}{
	{"two.txt", []string{"a.json", "b.json"}, []string{"-e", compareEvents, "./naive 1000", "./interchange 1000"}, 0},
	{"two.json", []string{"a.json", "b.json"}, []string{"--json", "-e", compareEvents, "./naive 1000", "./interchange 1000"}, 0},
	{"two.csv", []string{"a.json", "b.json"}, []string{"--csv", "-e", compareEvents, "./naive 1000", "./interchange 1000"}, 0},
	{"two.md", []string{"a.json", "b.json"}, []string{"--markdown", "-e", compareEvents, "./naive 1000", "./interchange 1000"}, 0},
	{"failing.txt", []string{"a.json", "failing.json"}, []string{"-r", "3", "--warmup", "1", "--no-interleave", "-n", "base", "-n", "flaky", "-e", "task-clock,page-faults", "./naive", "./flaky"}, 1},
}

func TestCompareGolden(t *testing.T) {
	for _, c := range compareCases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"compare"}, compareFake(c.fakes...)...), c.args...)
			var stdout, stderr bytes.Buffer
			if code := testRun(args, &stdout, &stderr); code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr.String())
			}
			goldenText(t, filepath.Join("testdata", "compare", c.name), stdout.String()+stderr.String())
		})
	}
}

// TestCompareValues checks the comparison's numbers against the fake runs themselves: B's
// task-clock mean and the ratio, and that the failed run is out of the statistics.
func TestCompareValues(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := append(append([]string{"compare", "--json", "-r", "3"}, compareFake("a.json", "failing.json")...), "-e", "task-clock", "./a", "./b")
	if code := testRun(args, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1 (a run failed); stderr: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "B failed in 1 of 3 runs") {
		t.Errorf("stderr does not say which command failed: %q", stderr.String())
	}
	var c compare.Comparison
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if c.Schema != compare.Schema || len(c.Commands) != 2 || c.Commands[1].Failed != 1 || c.Commands[1].Runs[1].ExitStatus != 1 {
		t.Fatalf("commands: %+v", c.Commands)
	}
	for _, r := range c.Rows {
		if r.Name != "task-clock" {
			continue
		}
		// A's first three scripted runs: 0.98 * (1.50, 1.52, 1.47) s; B's runs 0 and 2: 0.98 * (1.49, 1.53) s.
		a, b := r.Cells[0].Stats, r.Cells[1].Stats
		wantA, wantB := 0.98*(1500+1520+1470)/3.0, 0.98*(1490+1530)/2.0
		if a.N != 3 || b.N != 2 || !near(a.Mean, wantA) || !near(b.Mean, wantB) || !near(r.Cells[1].Delta.Ratio, wantB/wantA) {
			t.Errorf("task-clock: A %+v, B %+v, delta %+v; want means %g and %g", a, b, r.Cells[1].Delta, wantA, wantB)
		}
		return
	}
	t.Fatal("no task-clock row")
}

func near(a, b float64) bool { return a-b < 1e-9*b && b-a < 1e-9*b }

// TestCompareSaved compares saved pmc stat --json results from two "machines": the header
// names both CPUs and the event whose encoding differs.
func TestCompareSaved(t *testing.T) {
	dir := t.TempDir()
	save := func(spec, name, cpu string, cycles uint64) string {
		var stdout, stderr bytes.Buffer
		args := []string{"stat", "--fake", filepath.Join("testdata", "compare", spec), "-r", "5", "--json", "-e", compareEvents, "--", "./matmul"}
		if code := testRun(args, &stdout, &stderr); code != 0 {
			t.Fatalf("pmc stat: exit %d: %s", code, stderr.String())
		}
		var doc map[string]any
		if err := json.Unmarshal(stderr.Bytes(), &doc); err != nil { // pmc stat writes to stderr, as perf does
			t.Fatal(err)
		}
		// What pmc stat records on a real machine (the fake backend records no host).
		doc["machine"] = map[string]any{"cpu": cpu, "kernel": "Linux 6.1.0-28-arm64 #1 SMP aarch64"}
		for _, r := range doc["runs"].([]any) {
			for _, c := range r.(map[string]any)["counts"].([]any) {
				if c := c.(map[string]any); c["event"] == "cycles" {
					c["encoding"].(map[string]any)["config"] = cycles
				}
			}
		}
		data, _ := json.Marshal(doc)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := save("a.json", "a57.json", "ARM Cortex-A57", 0)
	b := save("b.json", "a7.json", "ARM Cortex-A7", 0x11)
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"compare", "-e", "x", a, b}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "saved results are compared as they are") {
		t.Errorf("-e with saved results: exit %d, %q", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := testRun([]string{"compare", a, b}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	goldenText(t, filepath.Join("testdata", "compare", "saved.txt"), strings.ReplaceAll(stdout.String(), dir, "DIR"))
	// A pmc compare --json document compares again, with its commands.
	stdout.Reset()
	testRun([]string{"compare", "--json", a, b}, &stdout, &stderr)
	both := filepath.Join(dir, "both.json")
	os.WriteFile(both, stdout.Bytes(), 0o644)
	stdout.Reset()
	if code := testRun([]string{"compare", both}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "B: both.json: B") {
		t.Errorf("re-reading pmc compare --json: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestCompareBadInput: each mistake is one line naming the fix, exit 1 (127 for a command
// that does not exist), no output file left behind.
func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	wrong := filepath.Join(dir, "wrong.json")
	os.WriteFile(wrong, []byte(`{"schema": "pmc.mem/v1"}`), 0o644)
	notJSON := filepath.Join(dir, "text.json")
	os.WriteFile(notJSON, []byte("cycles 12\n"), 0o644)
	out := filepath.Join(dir, "out.txt")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{filepath.Join(dir, "missing.json"), wrong}, 1, "missing.json: no such file or directory"},
		{[]string{wrong, wrong}, 1, `wrong.json: schema "pmc.mem/v1": want pmc.stat/v1 (pmc stat --json) or pmc.compare/v1`},
		{[]string{notJSON}, 1, "text.json: not pmc JSON"},
		{[]string{wrong, "sleep 1"}, 1, "1 of the 2 arguments are .json files"},
		{[]string{"-r", "0", "true"}, 1, "-r 0: give at least 1 run"},
		{[]string{"--json", "--csv", "true"}, 1, "--json, --csv and --markdown each choose the output"},
		{[]string{"'unclosed", "true"}, 1, "the ' quote is not closed"},
		{[]string{"-o", out, "-e", "task-clock", "/nonexistent/prog", "true"}, 127, "command A (/nonexistent/prog)"},
		{append(compareFake("a.json"), "true", "false"), 1, "--fake: 1 scripts for 2 commands"},
	} {
		var stdout, stderr bytes.Buffer
		code := testRun(append([]string{"compare"}, c.args...), &stdout, &stderr)
		msg := stderr.String()
		if code != c.code || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") != 1 {
			t.Errorf("pmc compare %q: exit %d, stderr %q; want exit %d and one line with %q", c.args, code, msg, c.code, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o file left after a failed comparison: %v", err)
	}
}

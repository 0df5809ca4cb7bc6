package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/host"
)

// goldenCases run `pmc stat --fake SPEC ARGS` end to end (flags, session, scaling, metrics,
// writers) and compare everything pmc prints with testdata/stat/<name>.
var goldenCases = []struct {
	name string
	fake string
	args string
	code int
}{
	{"default.txt", "pmu.json", "-- ./matmul", 0},
	{"default.json", "pmu.json", "--json -- ./matmul", 0},
	{"default.csv", "pmu.json", "-x, -- ./matmul", 0},
	{"default.header.csv", "pmu.json", "--csv -- ./matmul", 0},
	{"default.semicolon.csv", "pmu.json", "-x ; -- ./matmul", 0},
	{"multiplexed.txt", "multiplexed.json", "-e cycles,instructions,branches,branch-misses,L1-dcache-loads,LLC-loads -- ./a.out", 0},
	{"multiplexed.noscale.txt", "multiplexed.json", "--no-scale -e cycles,instructions,branches,branch-misses,L1-dcache-loads,LLC-loads -- ./a.out", 0},
	{"multiplexed.json", "multiplexed.json", "--json -e cycles,instructions,branches,branch-misses,L1-dcache-loads,LLC-loads -- ./a.out", 0},
	{"multiplexed.csv", "multiplexed.json", "--csv -e cycles,instructions,branches,branch-misses,L1-dcache-loads,LLC-loads -- ./a.out", 0},
	{"group.txt", "group.json", "-e {cycles,instructions},{r08,r11} -- ./loop 1000", 0},
	{"group.json", "group.json", "--json -e {cycles,instructions},{r08,r11} -- ./loop 1000", 0},
	{"repeat.txt", "repeat.json", "-r 3 -e task-clock,page-faults,instructions -- ./loop", 0},
	{"repeat.csv", "repeat.json", "-r 3 -x, -e task-clock,page-faults,instructions -- ./loop", 0},
	{"repeat.json", "repeat.json", "-r 3 --json -e task-clock,page-faults,instructions -- ./loop", 0},
	{"repeat-table.txt", "repeat.json", "-r 3 --table -e task-clock,page-faults,instructions -- ./loop", 0},
	{"interval.txt", "interval.json", "-I 100 -e task-clock,page-faults -- sleep 0.35", 0},
	{"interval.csv", "interval.json", "-I 100 -x, -e task-clock,page-faults -- sleep 0.35", 0},
	{"interval.json", "interval.json", "-I 100 --json -e task-clock,page-faults -- sleep 0.35", 0},
	{"interval-count.txt", "interval.json", "-I 100 --interval-count 2 -e task-clock,page-faults -- sleep 0.35", 0},
	{"percpu.txt", "percpu.json", "-a -A -e cpu-clock,context-switches", 0},
	{"percpu-aggr.txt", "percpu.json", "-a -e cpu-clock,context-switches", 0},
	{"killed.txt", "killed.json", "-e task-clock,page-faults -- ./spin", 130},
	{"dry-run.txt", "pmu.json", "--dry-run -e cycles:u,{instructions,branches}:k,page-faults -- ./x", 0},
}

func TestStatGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"stat", "--fake", filepath.Join("testdata", "fake", c.fake)}, strings.Fields(c.args)...)
			var stdout, stderr bytes.Buffer
			code := testRun(args, &stdout, &stderr)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, stderr.String())
			}
			got := stdout.String() + stderr.String()
			goldenText(t, filepath.Join("testdata", "stat", c.name), got)
		})
	}
}

// TestStatOutputFile: -o writes the same bytes to a file (atomically), --append adds to it.
func TestStatOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	spec := filepath.Join("testdata", "fake", "pmu.json")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"stat", "--fake", spec, "-x,", "-o", out, "--", "./matmul"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("with -o nothing goes to stderr, got %q", stderr.String())
	}
	// Like perf's, the file starts with "# started on <date>" and a blank line.
	started := regexp.MustCompile(`(?m)^# started on [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}\n\n`)
	first, _ := os.ReadFile(out)
	want, _ := os.ReadFile(filepath.Join("testdata", "stat", "default.csv"))
	if !started.Match(first) || !bytes.Equal(started.ReplaceAll(first, nil), want) {
		t.Errorf("-o file differs from the started line + default.csv:\n%s", first)
	}
	testRun([]string{"stat", "--fake", spec, "-x,", "-o", out, "--append", "--", "./matmul"}, &stdout, &stderr)
	both, _ := os.ReadFile(out)
	if len(started.FindAll(both, -1)) != 2 || !bytes.Equal(started.ReplaceAll(both, nil), append(append([]byte{}, want...), want...)) {
		t.Errorf("--append: got\n%s", both)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

// goldenText compares pmc's output with a golden file (go test -update rewrites it).
func goldenText(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// TestGoldensHostIndependent: the fake backend's goldens do not depend on the machine the
// tests run on. With pmc believing it runs on a Cortex-A5 or an ARM1176 board, every stat,
// metric, plan and report golden comes out the same (the metric set and the issue width used
// to come from the live host: IPC was flagged implausible, metrics disappeared).
func TestGoldensHostIndependent(t *testing.T) {
	for _, board := range []string{"cortex-a5", "arm1176", "cortex-a57"} {
		data, err := os.ReadFile(filepath.Join("testdata", "fake", "machine-"+board+".json"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := host.Load(data)
		if err != nil {
			t.Fatal(err)
		}
		old := machine
		machine = func() *host.Machine { return m }
		t.Run(board, func(t *testing.T) {
			t.Run("stat", TestStatGolden)
			t.Run("report", TestStatReportGolden)
			t.Run("plan", TestPlanGolden)
			t.Run("show", TestShowRoundTrip)
			t.Run("regions", TestShowRegions)
		})
		machine = old
	}
}

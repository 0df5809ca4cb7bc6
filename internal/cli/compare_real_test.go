package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/testenv"
)

func compareJSON(t *testing.T, code int, args ...string) (*compare.Comparison, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if got := testRun(append([]string{"compare", "--json"}, args...), &stdout, &stderr); got != code {
		t.Fatalf("pmc compare %q: exit %d, want %d; stderr:\n%s", args, got, code, stderr.String())
	}
	var c compare.Comparison
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	return &c, stderr.String()
}

func row(t *testing.T, c *compare.Comparison, name string) compare.Row {
	t.Helper()
	for _, r := range c.Rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no %s row", name)
	return compare.Row{}
}

// TestCompareReal runs two sizes of the matmul workload on this machine with software
// events: the 512x512 product's three matrices are 3 MiB, 768 pages more than the 64x64
// one's, and it does 512 times the work, so its page faults and task-clock are both
// significantly higher; each cell's values are its runs' counts; a single-threaded run's
// task-clock fits in its wall time; --html writes the page.
func TestCompareReal(t *testing.T) {
	defer testenv.CheckFDs(t)
	mm := workload(t, "matmul")
	page := filepath.Join(t.TempDir(), "c.html")
	c, _ := compareJSON(t, 0, "-r", "3", "-e", "task-clock,page-faults", "--html", page,
		mm+" --order ikj --size 64", mm+" --order ikj --size 512")
	if len(c.Commands) != 2 || c.Commands[0].Backend != "perf_event" || !c.Interleaved {
		t.Fatalf("commands: %+v", c.Commands)
	}
	for _, cmd := range c.Commands {
		if cmd.Failed != 0 || len(cmd.Runs) != 3 {
			t.Fatalf("%s: %d runs, %d failed", cmd.Label, len(cmd.Runs), cmd.Failed)
		}
		for _, r := range cmd.Runs {
			tc := r.Counts[0]
			if tc.Event != "task-clock" || tc.Value() > r.ElapsedSec*1e3*1.01+1 {
				t.Errorf("%s run %d: task-clock %.3f msec in %.3f s of wall time", cmd.Label, r.Index, tc.Value(), r.ElapsedSec)
			}
		}
	}
	tc := row(t, c, "task-clock")
	for ci, cell := range tc.Cells {
		if cell.RunningPct != 100 || cell.Stats.N != 3 {
			t.Errorf("task-clock %s: running %.2f%%, %d values", c.Commands[ci].Label, cell.RunningPct, cell.Stats.N)
		}
		for k, v := range cell.Values {
			if want := c.Commands[ci].Runs[k].Counts[0].Value(); v != want { // pmc stat's conversion to msec
				t.Errorf("task-clock %s run %d: %g in the cell, %g counted", c.Commands[ci].Label, k, v, want)
			}
		}
	}
	if d := tc.Cells[1].Delta; d == nil || !d.Significant || d.Ratio < 5 {
		t.Errorf("task-clock of 512x512 vs 64x64: %+v, want significantly more (512x the work)", d)
	}
	pf := row(t, c, "page-faults")
	more := pf.Cells[1].Stats.Mean - pf.Cells[0].Stats.Mean
	if d := pf.Cells[1].Delta; d == nil || !d.Significant || more < 700 || more > 900 {
		t.Errorf("page-faults: %.1f more, delta %+v; want about 768 more, significant", more, d)
	}
	html, err := os.ReadFile(page)
	if err != nil || strings.Count(string(html), `<svg class="bars"`) != len(c.Rows) {
		t.Errorf("--html: %v, %d charts for %d rows", err, strings.Count(string(html), `<svg class="bars"`), len(c.Rows))
	}
}

// TestCompareRealFailing: a command that exits non-zero is run every time, its status is
// recorded per run, the comparison says which runs failed, and pmc exits 1.
func TestCompareRealFailing(t *testing.T) {
	c, stderr := compareJSON(t, 1, "--shell", "-r", "2", "-e", "task-clock", "true", "exit 3")
	if !strings.Contains(stderr, "B failed in 2 of 2 runs") {
		t.Errorf("stderr: %q", stderr)
	}
	b := c.Commands[1]
	if b.Failed != 2 || b.Runs[0].ExitStatus != 3 || b.Runs[1].ExitStatus != 3 || strings.Join(b.Command, " ") != "sh -c exit 3" {
		t.Errorf("B: %+v", b)
	}
	if cell := row(t, c, "task-clock").Cells[1]; cell.Stats.N != 0 || cell.Delta != nil {
		t.Errorf("failed runs in the statistics: %+v", cell)
	}
	var stdout, errb bytes.Buffer
	testRun([]string{"compare", "--shell", "-r", "2", "-e", "task-clock", "true", "exit 3"}, &stdout, &errb)
	if !strings.Contains(stdout.String(), "B: 2 of 2 runs failed, left out of the statistics: run 0 exit 3, run 1 exit 3") {
		t.Errorf("the text does not say which runs failed:\n%s", stdout.String())
	}
}

// TestCompareSim: pmc compare --sim runs each command under cachegrind (labelled simulated
// in every command's backend): the Cortex-A7 seed's loop orders on an 8 KiB 4-way L1D, where
// the interchanged order misses far less with the same loads (exact and equal in every run,
// a simulation being deterministic).
func TestCompareSim(t *testing.T) {
	testenv.Tool(t, "valgrind")
	mm := workload(t, "matmul-novec")
	c, _ := compareJSON(t, 0, "-r", "2", "--sim", "--sim-cache", "D1=8192,4,64", "-e", "L1-dcache-loads,L1-dcache-load-misses",
		mm+" --order ijk --size 100", mm+" --order ikj --size 100")
	for _, cmd := range c.Commands {
		if cmd.Backend != "simulated-cachegrind" {
			t.Errorf("%s: backend %q", cmd.Label, cmd.Backend)
		}
	}
	misses := row(t, c, "L1-dcache-load-misses")
	a, b := misses.Cells[0], misses.Cells[1]
	if len(a.Values) != 2 || len(b.Values) != 2 || a.Values[0] != a.Values[1] || b.Values[0] != b.Values[1] || b.Values[0] > a.Values[0]/2 {
		t.Errorf("misses ijk %v, ikj %v: want equal runs and ikj under half of ijk", a.Values, b.Values)
	}
}

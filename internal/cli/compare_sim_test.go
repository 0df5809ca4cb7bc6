package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/browsertest"
	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestCompareSavedSimulated is the case: two pmc stat --sim results that differ in
// their simulated last-level cache, compared. Every output says SIMULATED, shows each side's
// geometry and states the geometry difference as a difference of machines; the HTML page
// says so in a real browser.
func TestCompareSavedSimulated(t *testing.T) {
	testenv.Tool(t, "valgrind")
	mm := workload(t, "matmul-novec")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, c := range []struct{ out, ll string }{{a, "65536"}, {b, "524288"}} {
		var stdout, stderr bytes.Buffer
		args := []string{"stat", "--sim", "--sim-cache", "D1=16384,4,32;LL=" + c.ll + ",8,32", "--json", "-o", c.out, "--", mm, "--order", "ijk", "--size", "120"}
		if code := testRun(args, &stdout, &stderr); code != 0 {
			t.Fatalf("pmc stat --sim: exit %d\n%s", code, stderr.String())
		}
	}
	geometryA, geometryB := "LL 65536,8,32", "LL 524288,8,32"
	page := filepath.Join(dir, "c.html")
	for _, format := range [][]string{nil, {"--markdown"}, {"--csv"}, {"--json"}, {"--html", page}} {
		var stdout, stderr bytes.Buffer
		if code := testRun(append(append([]string{"compare"}, format...), a, b), &stdout, &stderr); code != 0 {
			t.Fatalf("pmc compare %v: exit %d\n%s", format, code, stderr.String())
		}
		out := stdout.String()
		if len(format) > 0 && format[0] == "--html" {
			out = browsertest.DumpDOM(t, page)
		}
		if len(format) > 0 && format[0] == "--json" {
			var c compare.Comparison
			if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
				t.Fatal(err)
			}
			s := c.Commands[1].Simulation
			if !c.Simulated || s == nil || s.Simulator != "cachegrind" || len(s.Caches) < 2 ||
				s.Caches[len(s.Caches)-1] != (compare.SimCache{Level: "LL", SizeBytes: 524288, Ways: 8, LineBytes: 32}) || !row(t, &c, "LLC-load-misses").Cells[0].Simulated {
				t.Errorf("JSON: simulated %v, B's simulation %+v", c.Simulated, s)
			}
			out = strings.Join(c.Differences, "\n") + "\n" + c.Commands[0].Simulation.String() + "\n" + s.String()
		}
		for _, want := range []string{"SIMULATED", "D1 16384,4,32", geometryA, geometryB} {
			if !strings.Contains(out, want) {
				t.Errorf("pmc compare %v: no %q in:\n%s", format, want, out)
			}
		}
		if (format == nil || format[0] != "--csv") && !strings.Contains(out, "simulated machine differs") {
			t.Errorf("pmc compare %v: the geometries are not stated as a machine difference:\n%s", format, out)
		}
	}
	// The text's table marks every simulated count, not only the header.
	var stdout, stderr bytes.Buffer
	testRun([]string{"compare", a, b}, &stdout, &stderr)
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "LLC-load-misses") && !strings.Contains(line, "SIMULATED") {
			t.Errorf("an LLC-load-misses line without its SIMULATED mark: %q", line)
		}
	}
	os.Remove(page)
}

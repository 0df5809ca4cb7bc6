package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/result"
)

// TestCompareSelfRegions is the case: pmc.h files hold regions, not runs. Two pmc.h
// files compare region by region (each cell one region's value, read as the file has it);
// a pmc.h file and a whole-program pmc stat result compare only when a region is named
// (--region), and what pmc.h does not record (user and system time, peak RSS) is "not
// recorded", never 0 ± 0.
func TestCompareSelfRegions(t *testing.T) {
	dir := t.TempDir()
	self := func(name, n string) (string, result.Stat) {
		path := filepath.Join(dir, name)
		if o, e, code := runWorkload(t, "selfmeasure", "--n", n, "--events", "task-clock,page-faults", "--json", path); code != 0 {
			t.Fatalf("selfmeasure: exit %d\n%s%s", code, o, e)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc result.Stat
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		return path, doc
	}
	a, docA := self("a.json", "200000")
	b, docB := self("b.json", "400000")

	c, _ := compareJSON(t, 0, a, b)
	regions := map[string]bool{}
	for _, r := range c.Rows {
		regions[r.Region] = true
		for ci, cell := range r.Cells {
			if cell.Stats.N > 1 {
				t.Errorf("%s %s: %s has %d values: regions were taken for runs", r.Region, r.Name, c.Commands[ci].Label, cell.Stats.N)
			}
		}
		if (r.Name == "user time" || r.Name == "sys time") && (r.Cells[0].Status != compare.NotRecorded || r.Cells[0].Stats.N != 0) {
			t.Errorf("%s %s: %+v, want not recorded", r.Region, r.Name, r.Cells[0])
		}
	}
	if len(regions) != 4 || !regions["main"] || !regions["loop"] || !regions["touch"] || !regions["empty"] {
		t.Errorf("rows of regions %v, want main, empty, loop, touch", regions)
	}
	// Region loop (run 2 in both files): each cell is that region's value, in msec.
	for _, r := range c.Rows {
		if r.Region == "loop" && r.Name == "task-clock" {
			want := []float64{docA.Runs[2].Counts[0].Scaled / 1e6, docB.Runs[2].Counts[0].Scaled / 1e6}
			for i, cell := range r.Cells {
				if len(cell.Values) != 1 || cell.Values[0] != want[i] {
					t.Errorf("loop task-clock %s: %v, want %v", c.Commands[i].Label, cell.Values, want[i])
				}
			}
		}
	}
	var text, stderr bytes.Buffer
	testRun([]string{"compare", a, b}, &text, &stderr)
	if strings.Contains(text.String(), "run(s)") || !strings.Contains(text.String(), "4 regions") || !strings.Contains(text.String(), "<not recorded>") {
		t.Errorf("text:\n%s", text.String())
	}

	// A whole program against regions: only when asked for a region.
	st := filepath.Join(dir, "stat.json")
	var out bytes.Buffer
	if code := testRun([]string{"stat", "--json", "-o", st, "-e", "task-clock,page-faults", "--", workload(t, "selfmeasure"), "--n", "200000",
		"--events", "task-clock", "--json", filepath.Join(dir, "x.json")}, &out, &stderr); code != 0 {
		t.Fatalf("pmc stat: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := testRun([]string{"compare", a, st}, &out, &stderr); code != 1 || !strings.Contains(stderr.String(), "--region") ||
		!strings.Contains(stderr.String(), "main, empty, loop, touch") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("regions vs a whole program without --region: exit %d, %q", code, stderr.String())
	}
	c, _ = compareJSON(t, 0, "--region", "main", a, st)
	for _, r := range c.Rows {
		if r.Region != "" {
			t.Errorf("--region main: row %s of region %q", r.Name, r.Region)
		}
		switch r.Name {
		case "task-clock":
			if r.Cells[0].Values[0] != docA.Runs[0].Counts[0].Scaled/1e6 || r.Cells[1].Stats.N != 1 {
				t.Errorf("task-clock: region main %v against the whole program %v", r.Cells[0].Values, r.Cells[1].Values)
			}
		case "user time", "peak RSS":
			if r.Cells[0].Status != compare.NotRecorded || r.Cells[1].Stats.N != 1 {
				t.Errorf("%s: %+v / %+v, want not recorded / a value", r.Name, r.Cells[0], r.Cells[1])
			}
		}
	}
	if !strings.Contains(c.Commands[0].File, "region main") {
		t.Errorf("command A: %q does not name its region", c.Commands[0].File)
	}
	stderr.Reset()
	if code := testRun([]string{"compare", "--region", "nosuch", a, st}, &out, &stderr); code != 1 || !strings.Contains(stderr.String(), `no region "nosuch"`) {
		t.Errorf("an unknown region: exit %d, %q", code, stderr.String())
	}
}

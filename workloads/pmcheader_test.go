package workloads_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestPMCHeaderMisuse compiles testdata/pmcmisuse.c against include/pmc.h: warnings for calls
// out of order, refused event lists, and JSON that stays valid for odd region names.
func TestPMCHeaderMisuse(t *testing.T) {
	testenv.Tool(t, "cc")
	dir := t.TempDir()
	exe := filepath.Join(dir, "pmcmisuse")
	args := append(append([]string{"-std=gnu11", "-O2"}, strictWarnings...), "-I../include", "-o", exe, "testdata/pmcmisuse.c", "-pthread")
	out, err := exec.Command("cc", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("compiling with pmc.h: %v\n%s", err, out)
	}
	jsonPath := filepath.Join(dir, "out.json")
	cmd := exec.Command(exe, jsonPath)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pmcmisuse: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	for _, want := range []string{
		`pmc: pmc_begin("early"): call pmc_open first`,
		`pmc: pmc_end("nothing"): no region is open`,
		`pmc: pmc_end("a"): the innermost open region is "b"; pass ignored`,
		"pmc: unknown event nope: use a generic name",
		"pmc: more than 16 events: measure fewer at a time",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if got, want := stdout.String(), "value_unknown=-1 value_a=0\nopen_bad=-1\nopen_17=-1\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep selfReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, data)
	}
	names := []string{}
	for _, r := range rep.Regions {
		names = append(names, r.Name+"<"+r.Parent)
	}
	if got := strings.Join(names, ","); got != "a<,b<a,q\"\\\tx<" {
		t.Errorf("regions %q", got)
	}
	for _, run := range rep.Runs {
		if len(run.Counts) != 3 {
			t.Fatalf("run %d: %d counts", run.Index, len(run.Counts))
		}
		for _, c := range run.Counts {
			if c.Status != result.Counted || c.CPU != -1 || c.Encoding.PMU != "software" || c.Encoding.Type != 1 {
				t.Errorf("run %d %s: %+v", run.Index, c.Event, c)
			}
		}
	}
	// Two top-level regions (a and the odd name): the summary counts both, not b.
	for _, s := range rep.Summary {
		if s.Runs != 2 || s.Status != result.Counted {
			t.Errorf("summary %s: runs %d status %s, want 2 counted", s.Event, s.Runs, s.Status)
		}
	}
}

package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// TestShowSelfMetrics: pmc show prints a pmc.h file's regions with the metrics pmc stat
// prints beside the same counts: IPC for instructions:u,cycles:u (a pmc.self/v1 file with
// fields this reader does not know, as a newer pmc.h may write), and, from a real pmc.h file
// measured here, CPUs utilized beside task-clock and the page-fault rate, each equal to its
// region's counts over its time.
func TestShowSelfMetrics(t *testing.T) {
	var out, stderr bytes.Buffer
	if code := testRun([]string{"show", filepath.Join("testdata", "show", "self-ipc.json")}, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?s)region main .*instructions:u +# +0\.80  insn per cycle.*region loop`),
		regexp.MustCompile(`(?s)region loop .*instructions:u +# +1\.00  insn per cycle`),
		regexp.MustCompile(`(?s)region main .*3\.00 msec task-clock +# +0\.750 CPUs utilized`),
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("no %s in:\n%s", want, out.String())
		}
	}

	path := filepath.Join(t.TempDir(), "self.json")
	if o, e, code := runWorkload(t, "selfmeasure", "--n", "200000", "--events", "task-clock,page-faults", "--json", path); code != 0 {
		t.Fatalf("selfmeasure: exit %d\n%s%s", code, o, e)
	}
	var doc struct {
		result.Stat
		Regions []struct {
			Name string `json:"name"`
			Run  int    `json:"run"`
		} `json:"regions"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := testRun([]string{"show", path}, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	tables := strings.Split(out.String(), "Performance counter stats for")[1:]
	if len(tables) != len(doc.Regions) {
		t.Fatalf("%d tables for %d regions:\n%s", len(tables), len(doc.Regions), out.String())
	}
	for i, reg := range doc.Regions {
		run := doc.Runs[reg.Run]
		tc, pf := run.Counts[0], run.Counts[1]
		if tc.Scaled == 0 {
			continue // a region too short for the clock (empty)
		}
		cpus := tc.Scaled / 1e9 / run.ElapsedSec
		m := regexp.MustCompile(`task-clock +# +([\d.]+) CPUs utilized`).FindStringSubmatch(tables[i])
		if m == nil {
			t.Errorf("region %s: no CPUs utilized:\n%s", reg.Name, tables[i])
			continue
		}
		if got, _ := strconv.ParseFloat(m[1], 64); math.Abs(got-cpus) > 0.0005 {
			t.Errorf("region %s: %s CPUs utilized, want %.4f (task-clock %.0f ns over %.6f s)", reg.Name, m[1], cpus, tc.Scaled, run.ElapsedSec)
		}
		if pf.Scaled > 0 && !regexp.MustCompile(`page-faults +# +[\d.]+ [KM]?/sec`).MatchString(tables[i]) {
			t.Errorf("region %s: no page-fault rate:\n%s", reg.Name, tables[i])
		}
	}
}

// runWorkload runs a built-in workload and returns its output and exit status.
func runWorkload(t *testing.T, name string, args ...string) (string, string, int) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(workload(t, name), args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

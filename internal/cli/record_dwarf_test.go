package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestRecordDwarf (issue 27): pmc record --call-graph dwarf of callchain (-O2 -g
// -fomit-frame-pointer) on this machine, reported by pmc: every sample in leaf has the
// callers mid, top, main; perf (scripts/deps.sh installs it) unwinds pmc's file to the same
// chains (perf script and pmc script agree sample for sample).
func TestRecordDwarf(t *testing.T) {
	testenv.CheckFDs(t)
	cc := testenv.Workload(t, "callchain")
	out := filepath.Join(t.TempDir(), "perf.data")
	var stdout, stderr bytes.Buffer
	args := []string{"record", "-e", "cpu-clock:u", "-F", "1000", "--call-graph", "dwarf", "-o", out, "--", cc, "100000000"}
	if code := testRun(args, &stdout, &stderr); code != 0 {
		testenv.Missing(t, "pmc record exit %d (sampling not allowed here?): %s", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := testRun([]string{"script", "-F", "comm,ip,sym,dso", "-i", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc script: exit %d: %s", code, stderr.String())
	}
	pmcScript := stdout.String()
	leaf := 0
	for _, block := range strings.Split(strings.TrimSpace(pmcScript), "\n\n") {
		var syms []string
		for _, l := range strings.Split(block, "\n")[1:] {
			if f := strings.Fields(l); len(f) >= 2 {
				syms = append(syms, f[1])
			}
		}
		if len(syms) == 0 || syms[0] != "leaf" {
			continue
		}
		leaf++
		if len(syms) < 4 || strings.Join(syms[:4], " ") != "leaf mid top main" {
			t.Errorf("a sample in leaf with the chain %v", syms)
		}
	}
	if leaf < 20 {
		t.Fatalf("%d samples in leaf:\n%s", leaf, pmcScript)
	}
	perf := testenv.HaveTool(t, "perf", "perf's unwinding of pmc's file")
	if perf == "" {
		t.Logf("%d samples in leaf, each leaf <- mid <- top <- main", leaf)
		return
	}
	perfScript, err := exec.Command(perf, "script", "-F", "comm,ip,sym,dso", "-i", out).Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	if string(perfScript) != pmcScript {
		t.Errorf("perf script and pmc script differ on pmc's recording:\nperf:\n%s\npmc:\n%s", perfScript, pmcScript)
	}
	t.Logf("%d samples in leaf, each leaf <- mid <- top <- main; perf script and pmc script equal (%d lines)", leaf, strings.Count(pmcScript, "\n"))
}

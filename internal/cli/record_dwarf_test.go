package cli

import (
	"bytes"
	"os"
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
	leaf := leafChains(t, pmcScript)
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

// leafChains checks pmc script's samples (-F comm,ip,sym[,dso]): every one in leaf has the
// callers mid, top, main; it returns how many there are (at least 20).
func leafChains(t *testing.T, script string) int {
	t.Helper()
	leaf := 0
	for _, block := range strings.Split(strings.TrimSpace(script), "\n\n") {
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
		t.Fatalf("%d samples in leaf:\n%s", leaf, script)
	}
	return leaf
}

// TestRecordDwarfArchive: with --embed-symbols, a --call-graph dwarf recording unwinds and
// annotates after its binary is gone (the archive keeps the unwind tables beside the
// sampled functions' code; keeping one must not drop the other).
func TestRecordDwarfArchive(t *testing.T) {
	dir := t.TempDir()
	cc := filepath.Join(dir, "callchain")
	if b, err := os.ReadFile(testenv.Workload(t, "callchain")); err != nil || os.WriteFile(cc, b, 0o755) != nil {
		t.Fatal("copying callchain:", err)
	}
	out := filepath.Join(dir, "perf.data")
	var stdout, stderr bytes.Buffer
	args := []string{"record", "-e", "cpu-clock:u", "-F", "1000", "--call-graph", "dwarf", "--embed-symbols", "-o", out, "--", cc, "100000000"}
	if code := testRun(args, &stdout, &stderr); code != 0 {
		testenv.Missing(t, "pmc record exit %d (sampling not allowed here?): %s", code, stderr.String())
	}
	if err := os.Remove(cc); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := testRun([]string{"script", "-F", "comm,ip,sym", "-i", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc script: exit %d: %s", code, stderr.String())
	}
	leaf := leafChains(t, stdout.String())
	stdout.Reset()
	stderr.Reset()
	if code := testRun([]string{"annotate", "--stdio", "-i", out, "leaf"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Percent") {
		t.Fatalf("pmc annotate leaf from the archive: exit %d: %s%s", code, stderr.String(), stdout.String())
	}
	t.Logf("binary removed: %d samples in leaf unwound from the archive, leaf annotated from it", leaf)
}

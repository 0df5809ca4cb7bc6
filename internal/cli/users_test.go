package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// These tests reproduce what perf and rpistat users hit in pmc (issue 15), one each.

// TestReportFileForms: --report FILE (with a space) writes FILE, with or without -- and with
// flags after it, as --report=FILE does; it ran FILE as the command (exit 127). pmc says
// where the report went.
func TestReportFileForms(t *testing.T) {
	dir := t.TempDir()
	for i, form := range [][]string{
		{"--report", "%s", "--"},
		{"--report", "%s", "-e", "task-clock", "--"},
		{"--report", "%s"},
		{"--report=%s"},
	} {
		path := filepath.Join(dir, strings.Repeat("r", i+1)+".txt")
		args := []string{"stat", "--fake", "testdata/fake/pmu.json"}
		for _, a := range form {
			args = append(args, strings.ReplaceAll(a, "%s", path))
		}
		args = append(args, "true")
		_, errs, code := runPMC(args...)
		if _, err := os.Stat(path); code != 0 || err != nil || !strings.Contains(errs, "report written to "+path) {
			t.Errorf("%v: exit %d, %v:\n%s", form, code, err, errs)
		}
	}
	// --report alone before a command: the default file, and the command runs.
	t.Chdir(dir)
	if _, errs, code := runPMC("stat", "--fake", filepath.Join(origDir, "testdata/fake/pmu.json"), "--report", "true"); code != 0 || !strings.Contains(errs, "report written to pmc-report.txt") {
		t.Errorf("--report alone: exit %d\n%s", code, errs)
	}
}

// TestListFixes (issue 15 item 7): `pmc list tracepoint` lists them (it failed although the
// help names the category); --cpu X shows that CPU only (no host sysfs events or
// tracepoints, no "not available here" on every row); the counters are shown; table rows are
// sorted by code.
func TestListFixes(t *testing.T) {
	onHost(t, "x86-vm")
	out, errs, code := runPMC("list", "tracepoint")
	if code != 0 || !strings.Contains(out, "sched:sched_switch") {
		t.Errorf("list tracepoint: exit %d %s\n%s", code, errs, out)
	}
	out, _, _ = runPMC("list", "--cpu", "cortex-a7")
	for _, bad := range []string{"msr/tsc/", "Tracepoints", "not available here"} {
		if strings.Contains(out, bad) {
			t.Errorf("--cpu cortex-a7 shows %q of this host:\n%s", bad, out)
		}
	}
	mustContain(t, out, "Counters: 4 + cycle counter", "Browsing: cortex-a7's table, not this machine's CPU")
	out, _, _ = runPMC("list", "--cpu", "cortex-a5", "table")
	var codes []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "[0x"); i > 0 {
			codes = append(codes, l[i:])
		}
	}
	if len(codes) < 30 || !slices.IsSorted(codes) {
		t.Errorf("cortex-a5 table rows not sorted by code: %v", codes)
	}
	mustContain(t, out, "Counters: 2 + cycle counter")
}

// TestExplainDidYouMean (item 8): explain does not silently turn the seed's
// L1-icode-load-misses into L1-icache-load-misses, and suggests like pmc stat does.
func TestExplainDidYouMean(t *testing.T) {
	for name, want := range map[string]string{
		"L1-icode-load-misses": "did you mean: L1-icache-load-misses?",
		"cache-mises":          "did you mean: cache-misses?",
	} {
		_, errs, code := runPMC("explain", name, "--cpu", "cortex-a7")
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("explain %s: exit %d %q", name, code, errs)
		}
	}
}

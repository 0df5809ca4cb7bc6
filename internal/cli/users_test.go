package cli

import (
	"os"
	"path/filepath"
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

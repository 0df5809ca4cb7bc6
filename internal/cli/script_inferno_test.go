package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// inferno finds inferno-collapse-perf (crates.io's inferno; scripts/deps.sh installs it with
// cargo): on PATH, else in cargo's bin directory. Where CI runs (CI set) a missing one fails
// the test: deps.sh should have installed it.
func inferno(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("inferno-collapse-perf"); err == nil {
		return p
	}
	dirs := []string{os.Getenv("CARGO_HOME")}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cargo"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "bin", "inferno-collapse-perf")
		if d != "" && exec.Command(p, "--help").Run() == nil {
			return p
		}
	}
	testenv.Missing(t, "inferno-collapse-perf not found: cargo install inferno (scripts/deps.sh does)")
	return ""
}

// collapse runs inferno-collapse-perf --kernel on perf script text.
func collapse(t *testing.T, bin string, text []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--kernel"}, args...)...)
	cmd.Stdin = bytes.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", bin, err, stderr.String())
	}
	return string(out)
}

// TestScriptInferno: a real consumer of perf script's text, inferno's collapser, makes the
// same folded stacks of pmc script's output as of perf script's (the goldens), and they are
// the stacks pmc report --folded writes.
func TestScriptInferno(t *testing.T) {
	bin := inferno(t)
	empty := t.TempDir()
	cases := []struct {
		golden, file string
		report       bool // pmc report --folded draws the event inferno folds
	}{
		{"cpuclock", "cpuclock.data", true},
		{"callgraph", "callgraph.data", true},
		// inferno folds the first event it meets (page-faults; its --event-filter does not
		// match perf's padded event names), pmc report --folded the file's first (cpu-clock).
		{"multi", "multi.data", false},
		{"system", "system.data", true},
		{"attach", "attach.data", true},
		{"pmc-g", "pmc-g.data", true},
		{"pmc-a", "pmc-a.data", true},
		{"perf-z-g", "perf-z-g.data", true},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			file := scriptFile(c.file)
			want, err := os.ReadFile(filepath.Join("testdata", "perf-script", c.golden+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			var script, report, stderr bytes.Buffer
			if code := testRun([]string{"script", "-i", file, "--symfs", empty}, &script, &stderr); code != 0 {
				t.Fatalf("pmc script: exit %d: %s", code, stderr.String())
			}
			fromPerf := collapse(t, bin, want)
			fromPMC := collapse(t, bin, script.Bytes())
			if len(fromPerf) == 0 {
				t.Fatal("inferno folded nothing of perf's text")
			}
			if fromPMC != fromPerf {
				t.Errorf("inferno folds pmc script's text differently from perf script's:\n%s", golden.Diff(fromPerf, fromPMC))
			}
			if !c.report {
				return
			}
			if code := testRun([]string{"report", "--folded", "-i", file, "--symfs", empty}, &report, &stderr); code != 0 {
				t.Fatalf("pmc report: exit %d: %s", code, stderr.String())
			}
			if report.String() != fromPerf {
				t.Errorf("pmc report --folded differs from inferno's folding of perf script:\n%s", golden.Diff(fromPerf, report.String()))
			}
		})
	}
}

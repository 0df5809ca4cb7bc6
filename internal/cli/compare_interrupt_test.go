package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/unix"
)

// startCompare starts pmc compare with the commands' output on a pipe (--show-output) and
// waits until they have printed "run" n times.
func startCompare(t *testing.T, n int, args ...string) *exec.Cmd {
	t.Helper()
	cmd := pmcCmd(t, append([]string{"compare", "--show-output", "--shell"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	for seen := 0; seen < n; {
		if !lines.Scan() {
			t.Fatalf("pmc compare ended before its commands printed %d lines", n)
		}
		if lines.Text() == "run" {
			seen++
		}
	}
	go func() { // keep the pipe drained
		for lines.Scan() {
		}
	}()
	return cmd
}

// TestCompareInterrupt: the first Ctrl-C stops the comparison and prints what was measured,
// marked interrupted, the run it cut short left out (as pmc stat -r does); pmc exits 130.
func TestCompareInterrupt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.json")
	cmd := startCompare(t, 4, "--json", "-o", out, "-r", "50", "-e", "task-clock", "echo run; sleep 0.2", "echo run; sleep 0.3")
	time.Sleep(50 * time.Millisecond) // in the fourth run (B's second)
	start := time.Now()
	cmd.Process.Signal(unix.SIGINT)
	err := cmd.Wait()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("pmc took %v to stop after Ctrl-C", d)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130", err)
	}
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatalf("no comparison written after Ctrl-C: %v", rerr)
	}
	var c compare.Comparison
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if !c.Interrupted {
		t.Error("the comparison is not marked interrupted")
	}
	total, cut := 0, 0
	for _, cmd := range c.Commands {
		if cmd.Failed != 0 {
			t.Errorf("%s: %d failed runs: an interrupted run is not a failure", cmd.Label, cmd.Failed)
		}
		for _, r := range cmd.Runs {
			total++
			if r.Interrupted {
				cut++
			}
		}
	}
	if total < 3 || total > 8 || cut != 1 {
		t.Errorf("%d runs, %d cut short; want the 3 or so before Ctrl-C and the one it cut", total, cut)
	}
	for _, r := range c.Rows {
		if r.Name != "wall time" {
			continue
		}
		if n := r.Cells[0].Stats.N + r.Cells[1].Stats.N; n != total-cut {
			t.Errorf("wall time over %d runs, want %d (the cut run left out)", n, total-cut)
		}
	}
}

// TestCompareInterruptTwice: a second Ctrl-C exits at once, even when the command ignores
// the signals that would end its run; no output file is left behind.
func TestCompareInterruptTwice(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.txt")
	cmd := startCompare(t, 1, "-o", out, "-r", "3", "-e", "task-clock", "trap '' INT TERM; echo run; sleep 4", "true")
	cmd.Process.Signal(unix.SIGINT)
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(unix.SIGINT)
	err := cmd.Wait()
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("pmc took %v to exit after the second Ctrl-C", d)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left after pmc exited: %v", left)
	}
}

// TestCompareTimeout: --timeout ends a run that takes too long (SIGTERM, as perf stat's
// --timeout); the run is a failure, listed as timed out and left out of the statistics. (Its
// elapsed time starts at the exec, after the limit starts: on a loaded machine, well after.)
func TestCompareTimeout(t *testing.T) {
	start := time.Now()
	c, errs := compareJSON(t, 1, "--timeout", "300ms", "-r", "2", "-e", "task-clock", "true", "sleep 5")
	d := time.Since(start)
	if d > 8*time.Second {
		t.Errorf("took %v: the 5 s runs were not stopped", d)
	}
	b := c.Commands[1]
	if b.Failed != 2 || len(b.Runs) != 2 || !b.Runs[0].TimedOut || !b.Runs[1].TimedOut || b.Runs[0].ElapsedSec <= 0 || b.Runs[0].ElapsedSec > d.Seconds() {
		t.Errorf("B: %+v", b)
	}
	if c.Commands[0].Failed != 0 || !strings.Contains(errs, "B timed out in 2 of 2 runs") {
		t.Errorf("A failed %d; stderr %q", c.Commands[0].Failed, errs)
	}
	var text strings.Builder
	compare.Text(&text, c, compare.TextOptions{})
	if !strings.Contains(text.String(), "run 0 timed out after 300ms") {
		t.Errorf("the text does not say which runs timed out:\n%s", text.String())
	}
}

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// TestReportInterruptedLive: Ctrl-C (SIGINT to pmc) while a real workload runs ends it with
// status 130, and the report is still written, atomically, with the counts up to the signal.
func TestReportInterruptedLive(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.txt")
	cmd := pmcCmd(t, "stat", "--report="+rep, "-e", "task-clock,context-switches,page-faults", "--", "sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitExec(t, cmd.Process.Pid, "sleep") // a fixed 300 ms came too early on a loaded machine
	cmd.Process.Signal(unix.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130", err)
	}
	data, err := os.ReadFile(rep)
	if err != nil {
		t.Fatalf("no report after SIGINT: %v", err)
	}
	text := string(data)
	for _, want := range []string{
		"  Command:              sleep 10\n",
		"  Exit status:          130 (SIGINT)\n",
		"the command was ended by SIGINT (exit status 130): the counts cover it up to that point",
		"  Counted by:           perf_event\n",
		"cpus_utilized",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	for _, ev := range []string{"task-clock", "context-switches", "page-faults"} {
		found := false
		for _, l := range strings.Split(text, "\n") {
			if f := strings.Fields(l); len(f) > 4 && f[1] == ev && strings.HasSuffix(l, "100.00%") {
				found = true
			}
		}
		if !found {
			t.Errorf("no counted %s row in the report:\n%s", ev, text)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

// waitExec waits until a child of pid runs comm: the workload has started and pmc counts.
func waitExec(t *testing.T, pid int, comm string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		// any of pmc's threads may have forked it: each task lists its own children
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		var kids []byte
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			kids = append(append(kids, ' '), b...)
		}
		for _, k := range strings.Fields(string(kids)) {
			if c, _ := os.ReadFile("/proc/" + k + "/comm"); strings.TrimSpace(string(c)) == comm {
				return
			}
		}
	}
	t.Fatalf("pmc (pid %d) did not start %s within 20 s", pid, comm)
}

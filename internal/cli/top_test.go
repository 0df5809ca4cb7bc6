package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// needTopRoot skips without root (system-wide sampling at perf_event_paranoid 2), unless CI.
func needTopRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "pmc top samples every CPU: needs root here (CI runs as root)")
	}
}

// hot starts a shell running the loop workload over and over (each run spins in wl_spin
// for seconds) until the test ends, and returns the shell's pid; with a cgroup, in it.
func hot(t *testing.T, cgroup string) int {
	t.Helper()
	argv := []string{"sh", "-c", `while :; do "$0" 4000000000 >/dev/null; done`, testenv.Workload(t, "loop")}
	if cgroup != "" {
		argv = testenv.InCgroup(cgroup, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// firstRow is a view's first row: "  NN.NN%  comm  dso  [.] sym" ("> " marks the selected).
var firstRow = regexp.MustCompile(`(?m)^Overhead.*\n(?:> |  )\s*([0-9.]+)%\s+(\S+)\s+(\S+)\s+\[(.)\] (\S+)`)

// TestTopTmux runs pmc top in a real terminal (tmux) beside a hot workload: the workload's
// spinning function becomes the first row, Enter shows its call chains (-g), and q quits
// with the terminal restored.
func TestTopTmux(t *testing.T) {
	needTopRoot(t)
	tmux := testenv.Tool(t, "tmux")
	// One spinning loop per CPU: on a loaded machine (go test runs packages side by side)
	// their one function still outweighs any other.
	for i := 0; i < runtime.NumCPU(); i++ {
		hot(t, "")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sock := fmt.Sprintf("pmc-top-test-%d", os.Getpid())
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	status := t.TempDir() + "/status"
	cmdline := fmt.Sprintf("env %s=1 %s top -g -d 0.5; echo $? > %s; sleep 60", cliModeEnv, self, status)
	tm("new-session", "-d", "-x", "150", "-y", "40", "-s", "top", cmdline)
	t.Cleanup(func() { exec.Command(tmux, "-L", sock, "kill-server").Run() })
	screen := func() string { return tm("capture-pane", "-p", "-t", "top") }
	// The workload spins in wl_spin: it must come first, however slow the machine.
	var s string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		s = screen()
		if m := firstRow.FindStringSubmatch(trimTitle(s)); m != nil && m[2] == "loop" && m[5] == "wl_spin" {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	m := firstRow.FindStringSubmatch(trimTitle(s))
	if m == nil || m[2] != "loop" || m[5] == "" || m[5] != "wl_spin" {
		t.Fatalf("the hot workload is not the first row after 60 s:\n%s", s)
	}
	if !strings.Contains(s, "PmcTop:") || !strings.Contains(s, "cpu-clock") && !strings.Contains(s, "cycles") {
		t.Errorf("no header:\n%s", s)
	}
	// Enter: the selected (first) row's call chains appear under it.
	tm("send-keys", "-t", "top", "Enter")
	deadline = time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(s, " <- ") {
		time.Sleep(300 * time.Millisecond)
		s = screen()
	}
	if !regexp.MustCompile(`(?m)^\s+[0-9.]+%\s+\S.* <- `).MatchString(s) {
		t.Errorf("Enter showed no call chain of the selected row:\n%s", s)
	}
	tm("send-keys", "-t", "top", "q")
	deadline = time.Now().Add(30 * time.Second)
	var st []byte
	for time.Now().Before(deadline) {
		if st, err = os.ReadFile(status); err == nil && len(st) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.TrimSpace(string(st)) != "0" {
		t.Fatalf("after q: exit status %q, screen:\n%s", st, screen())
	}
	if s = screen(); strings.Contains(s, "PmcTop:") {
		t.Errorf("the view is still on the screen after q (alternate screen not left):\n%s", s)
	}
}

// trimTitle drops what precedes the column titles' line start ("  Overhead" -> "Overhead").
func trimTitle(s string) string { return strings.Replace(s, "  Overhead", "Overhead", 1) }

// TestTopStdio: --stdio prints a snapshot every interval; -p (a shell and the workloads it
// starts) and --cgroup sample only their target, whose hot function is the first row;
// --comm keeps one command.
func TestTopStdio(t *testing.T) {
	needTopRoot(t)
	hot(t, "")
	// -p: one long process (the naive matrix multiply of the largest size runs 10-30 s, in main: gcc inlines it).
	mm := exec.Command(testenv.Workload(t, "matmul-novec"), "--order", "ijk", "--size", "2048")
	if err := mm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mm.Process.Kill(); mm.Wait() })
	pid := mm.Process.Pid
	mount, merr := host.Live().Cgroup2Mount()
	cg := testenv.Cgroup(t, fmt.Sprintf("pmc-top-%d", os.Getpid()), mount, merr)
	hot(t, cg)
	for _, c := range []struct {
		name      string
		args      []string
		comm, sym string // the first row's
	}{
		{"pid", []string{"-p", fmt.Sprint(pid)}, "matmul-novec", "main"},
		{"cgroup", []string{"--cgroup", cg}, "loop", "wl_spin"},
		{"comm", []string{"--comm", "loop", "--sort", "comm,pid,dso,sym"}, "loop", "wl_spin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"top", "--stdio", "-d", "1", "-n", "3", "-E", "5"}, c.args...)
			if code := testRun(args, &stdout, &stderr); code != 0 {
				t.Fatalf("pmc %v: exit %d: %s", args, code, stderr.String())
			}
			snaps := strings.Split(strings.TrimSpace(stdout.String()), "\n\n")
			if len(snaps) != 3 {
				t.Fatalf("%d snapshots, want 3:\n%s", len(snaps), stdout.String())
			}
			last := snaps[len(snaps)-1]
			rows := regexp.MustCompile(`(?m)^\s+([0-9.]+)%\s+(\S+)`).FindAllStringSubmatch(last, -1)
			if len(rows) == 0 {
				t.Fatalf("no rows:\n%s", last)
			}
			for _, r := range rows {
				if r[2] != c.comm && (r[2] != "sh" || c.name != "cgroup") {
					t.Errorf("a row of %s in a view of %s only:\n%s", r[2], c.comm, last)
				}
			}
			if first := strings.SplitN(last, "\n", 5)[3]; !strings.Contains(first, c.comm) || !strings.Contains(first, "] "+c.sym) {
				t.Errorf("the first row is not %s's %s:\n%s", c.comm, c.sym, last)
			}
			if c.name == "pid" && !strings.Contains(last, fmt.Sprintf("(pid %d)", pid)) {
				t.Errorf("header does not name the pid:\n%s", last)
			}
		})
	}
}

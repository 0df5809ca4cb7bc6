package perfsuite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Status is what one run of a test came to.
type Status string

const (
	Passed   Status = "pass"
	Skipped  Status = "skip" // the test itself said it cannot run here (exit 2)
	Failed   Status = "FAIL"
	Vacuous  Status = "vacuous" // exit 0, but a guard found nothing to check
	TimedOut Status = "timeout"
)

// Outcome is one run of one test: with the real perf or through the shim.
type Outcome struct {
	Status Status
	Exit   int
	Why    string   // a skip's or failure's reason, from the test's own output
	Inner  []string // the test's own lines about parts it skipped, on any exit
	Empty  []string // the guards that printed nothing
	Missed []string // the Passing lines the output lacks
	Log    string   // the file holding the test's output
	Took   time.Duration
}

// Runner runs perf's shell tests with a given PATH.
type Runner struct {
	Dir     string        // perf's tests: /usr/lib/perf-core/tests/shell
	LogDir  string        // where each run's output is kept
	Timeout time.Duration // per test run
}

// Run runs one test with env (its PATH decides which perf it meets), in a new temporary
// directory, with no input, in a process group of its own (killed as a whole at the timeout).
func (r *Runner) Run(ctx context.Context, t Test, label string, env []string) Outcome {
	logPath := filepath.Join(r.LogDir, t.Name+"."+label+".log")
	out := Outcome{Log: logPath}
	log, err := os.Create(logPath)
	if err != nil {
		return Outcome{Status: Failed, Exit: -1, Why: err.Error()}
	}
	defer log.Close()
	work, err := os.MkdirTemp("", "perfsuite-")
	if err != nil {
		return Outcome{Status: Failed, Exit: -1, Why: err.Error()}
	}
	defer os.RemoveAll(work)

	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	cmd := exec.Command(filepath.Join(r.Dir, t.Name))
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = work, env, log, log
	cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Outcome{Status: Failed, Exit: -1, Why: err.Error(), Log: logPath}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		<-done
		out.Status, out.Exit, out.Took = TimedOut, -1, time.Since(start)
		out.Why = fmt.Sprintf("still running after %v", r.Timeout)
		return out
	}
	unix.Kill(-cmd.Process.Pid, unix.SIGKILL) // whatever the test left running in its group
	out.Took = time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		out.Exit = ee.ExitCode()
	} else if err != nil {
		out.Exit = -1
	}
	text, _ := os.ReadFile(logPath)
	out.Status, out.Why, out.Inner = classify(out.Exit, text)
	for _, p := range t.Passing {
		if !bytes.Contains(text, []byte(p)) {
			out.Missed = append(out.Missed, p)
		}
	}
	if out.Status == Passed {
		for _, g := range t.Guards {
			if !r.guard(ctx, g, env, work, logPath) {
				out.Empty = append(out.Empty, g.What)
			}
		}
		if len(out.Empty) > 0 {
			out.Status = Vacuous
		}
	}
	return out
}

// guard runs one guard command and says whether it printed anything.
func (r *Runner) guard(ctx context.Context, g Guard, env []string, dir, logPath string) bool {
	cmd := exec.CommandContext(ctx, "bash", "-c", g.Cmd)
	cmd.Dir, cmd.Env = dir, append(append([]string(nil), env...), "LOG="+logPath)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, io.Discard
	cmd.Run() // grep's status does not matter: the output does
	return len(bytes.TrimSpace(b.Bytes())) > 0
}

// skipLine is a line of a test's output saying it skipped something: "[Skip] No BPF support",
// "Per-thread record [Skipped instructions:u not supported]", "Skip, not fail, for FP issues".
var skipLine = regexp.MustCompile(`(?i)\bskip`)

// reasonLine is a line that says why something did not work; failLine one that says it failed.
var (
	reasonLine = regexp.MustCompile(`(?i)skip|fail|error|not |\bno |missing|cannot|couldn't|unsupported|bad `)
	failLine   = regexp.MustCompile(`(?i)fail|error`)
)

// classify reads a test's exit status and output: 0 passed, 2 skipped (perf test's
// convention), anything else failed. The reason is the test's last skip line (a skip), its
// last line saying it failed (a failure), else its last line saying what went wrong, else its
// last line.
func classify(exit int, text []byte) (Status, string, []string) {
	var inner []string
	var last, reason, failed string
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if len(strings.Trim(line, "'\"[](){}.,:; ")) == 0 {
			continue
		}
		last = line
		if reasonLine.MatchString(line) {
			reason = line
		}
		if failLine.MatchString(line) && !skipLine.MatchString(line) {
			failed = line
		}
		if skipLine.MatchString(line) && !slices.Contains(inner, line) {
			inner = append(inner, line)
		}
	}
	if reason == "" {
		reason = last
	}
	if reason == "" {
		reason = "(the test printed nothing)"
	}
	switch exit {
	case 0:
		return Passed, "", inner
	case 2:
		if len(inner) > 0 {
			reason = inner[len(inner)-1]
		}
		return Skipped, clip(reason, 160), inner
	}
	if failed != "" {
		reason = failed
	}
	return Failed, fmt.Sprintf("exit %d: %s", exit, clip(reason, 160)), inner
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}

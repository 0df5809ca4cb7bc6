package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// hangRounds is how often the end of a recording is raced: the hang it guards against
// showed up in 6 of 25 runs of pmc record -a + SIGINT.
func hangRounds() int {
	if testing.Short() {
		return 5
	}
	return 50
}

// hangLimit only detects a hang (the process is then killed): it is no speed threshold.
const hangLimit = 2 * time.Minute

// TestRecordSIGINTNeverHangs: pmc record -a ended by SIGINT finalizes its file every time,
// whenever in the recording the signal comes.
func TestRecordSIGINTNeverHangs(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < hangRounds(); i++ {
		out := filepath.Join(dir, "perf.data")
		cmd := pmcCmd(t, "record", "-a", "-e", "cpu-clock", "-F", "1000", "-o", out)
		cmd.Env = append(cmd.Env, "GOTRACEBACK=all")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitSampling(t, cmd, time.Duration(i%10)*10*time.Millisecond)
		cmd.Process.Signal(os.Interrupt)
		t.Logf("round %d", i)
		if err := waitTimeout(t, cmd, hangLimit); err != nil {
			t.Fatalf("round %d: %v\n%s", i, err, stderr.String())
		}
		checkFinished(t, i, out, stderr.String())
	}
}

// TestRecordTargetExitNeverHangs: pmc record -p finalizes its file every time the process it
// samples exits.
func TestRecordTargetExitNeverHangs(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < hangRounds(); i++ {
		// The target waits for its stdin to close: it exits when the test says so.
		target := exec.Command("/bin/sh", "-c", "read x")
		release, err := target.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := target.Start(); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "perf.data")
		cmd := pmcCmd(t, "record", "-e", "cpu-clock", "-p", strconv.Itoa(target.Process.Pid), "-o", out)
		cmd.Env = append(cmd.Env, "GOTRACEBACK=all")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitSampling(t, cmd, time.Duration(i%10)*10*time.Millisecond)
		release.Close()
		target.Wait()
		t.Logf("round %d", i)
		if err := waitTimeout(t, cmd, hangLimit); err != nil {
			t.Fatalf("round %d: %v\n%s", i, err, stderr.String())
		}
		checkFinished(t, i, out, stderr.String())
	}
}

// checkFinished: the recording is complete (its header has the features a finished file
// has) and pmc said so.
func checkFinished(t *testing.T, round int, path, stderr string) {
	t.Helper()
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatalf("round %d: %v\n%s", round, err, stderr)
	}
	defer f.Close()
	if f.Unfinished || f.Features.Hostname == "" || !summaryLine.MatchString(stderr) {
		t.Fatalf("round %d: the recording was not finalized (unfinished %v, hostname %q):\n%s", round, f.Unfinished, f.Features.Hostname, stderr)
	}
}

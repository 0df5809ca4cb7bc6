package launch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// miniPMCCmd prepares the test binary as a minimal pmc running args; its report pipe is
// returned for reading.
func miniPMCCmd(t *testing.T, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), testModeEnv+"=pmc")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = os.Stderr
	t.Cleanup(func() { w.Close() })
	return cmd, bufio.NewReader(r)
}

// readReport reads the "pid N" line, and returns the pid and a function reading the final
// report (which fails the test if it does not come within limit).
func readPid(t *testing.T, rd *bufio.Reader) int {
	t.Helper()
	line, err := rd.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the pid line: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid ")))
	if err != nil {
		t.Fatalf("pid line %q", line)
	}
	return pid
}

func readReport(t *testing.T, rd *bufio.Reader, limit time.Duration) report {
	t.Helper()
	type res struct {
		line string
		err  error
	}
	c := make(chan res, 1)
	go func() {
		line, err := rd.ReadString('\n')
		c <- res{line, err}
	}()
	select {
	case r := <-c:
		if r.err != nil {
			t.Fatalf("reading the report: %v", r.err)
		}
		var rep report
		if err := json.Unmarshal([]byte(r.line), &rep); err != nil {
			t.Fatalf("report %q: %v", r.line, err)
		}
		return rep
	case <-time.After(limit):
		t.Fatalf("no report within %v", limit)
	}
	panic("unreachable")
}

// waitComm waits until pid runs the program named comm (the shim has exec'd).
func waitComm(t *testing.T, pid int, comm string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(b)) == comm {
			return
		}
	}
	t.Fatalf("pid %d did not become %q within 20 s", pid, comm)
}

// SIGINT sent to pmc alone (not from a terminal) is forwarded: the workload ends with 130
// and pmc, still alive, reports at once, not when the workload would have ended (60 s).
// Both bounds are far from the tens of milliseconds it takes idle: a loaded machine is slow.
func TestForwardSIGINT(t *testing.T) {
	cmd, rd := miniPMCCmd(t, "sleep", "60")
	cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true} // never the terminal's foreground
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := readPid(t, rd)
	waitComm(t, pid, "sleep")
	sent := time.Now()
	if err := cmd.Process.Signal(unix.SIGINT); err != nil {
		t.Fatal(err)
	}
	rep := readReport(t, rd, 30*time.Second)
	lag := time.Since(sent)
	t.Logf("report %v after SIGINT", lag)
	if rep.ExitCode != 130 || !rep.Status.Signaled || rep.Status.Signal != unix.SIGINT {
		t.Errorf("workload status %+v, want killed by SIGINT (130)", rep)
	}
	if rep.Status.Elapsed > 30*time.Second {
		t.Errorf("Elapsed %v: the workload outlived the signal", rep.Status.Elapsed)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("pmc did not survive: %v", err)
	}
}

// SIGTERM is forwarded as well.
func TestForwardSIGTERM(t *testing.T) {
	cmd, rd := miniPMCCmd(t, "sleep", "60")
	cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := readPid(t, rd)
	waitComm(t, pid, "sleep")
	cmd.Process.Signal(unix.SIGTERM)
	if rep := readReport(t, rd, 30*time.Second); rep.ExitCode != 143 {
		t.Errorf("workload status %+v, want 143", rep)
	}
}

// ^C typed at a real (pseudo-)terminal reaches both pmc and the workload in its foreground
// group: the workload must get exactly one SIGINT, and pmc must survive to report.
func TestTerminalCtrlC(t *testing.T) {
	master, slave, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	go func() { // drain the terminal's echo so writes never block
		buf := make([]byte, 256)
		for {
			if _, err := master.Read(buf); err != nil {
				return
			}
		}
	}()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.CreateTemp(t.TempDir(), "count")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// The workload is the test binary counting SIGINTs; its stdout goes to a file.
	cmd, rd := miniPMCCmd(t, "env", testModeEnv+"=sigcount", exe)
	cmd.Stdout = out
	cmd.ExtraFiles = append(cmd.ExtraFiles, slave) // fd 4: the controlling terminal
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true, Setctty: true, Ctty: 4}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	readPid(t, rd)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) { // the workload's "ready"
		b, _ := os.ReadFile(out.Name())
		if strings.HasPrefix(string(b), "ready\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("workload not ready within 20 s")
		}
	}
	if _, err := master.Write([]byte{0x03}); err != nil { // ^C: VINTR
		t.Fatal(err)
	}
	rep := readReport(t, rd, 30*time.Second)
	if rep.ExitCode != 0 {
		t.Fatalf("workload status %+v", rep)
	}
	b, _ := os.ReadFile(out.Name())
	if got := strings.TrimSpace(strings.TrimPrefix(string(b), "ready\n")); got != "1" {
		t.Errorf("the workload got %s SIGINTs from one ^C, want 1", got)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("pmc did not survive ^C: %v", err)
	}
}

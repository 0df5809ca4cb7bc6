package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
)

// fullTmpfs mounts a small tmpfs on a new directory and returns it and a function that
// fills it up (as root only: skips otherwise).
func fullTmpfs(t *testing.T, size string) (dir string, fill func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (a full disk)")
	}
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir, func() {
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, unix.ENOSPC) {
					t.Fatalf("filling the tmpfs: %v", err)
				}
				return
			}
		}
	}
}

// TestRecordAbortKeepsPaths: whatever kind of path -o names, a recording that fails before it
// starts (no PMU for cycles, no such process, no such command, a full disk) leaves the
// path, its symlink's target and PATH.old exactly as they were, and no temporary file.
func TestRecordAbortKeepsPaths(t *testing.T) {
	causes := []struct {
		name string
		args []string
		full bool // on a full tmpfs
	}{
		{"no-pmu", []string{"-e", "cycles", "--", "true"}, false},
		{"no-process", []string{"-e", "cpu-clock", "-p", "999999"}, false},
		{"not-found", []string{"-e", "cpu-clock", "--", "/nonexistent/command"}, false},
		{"disk-full", []string{"-e", "cpu-clock", "--", "true"}, true},
	}
	for _, c := range causes {
		for _, k := range testenv.PathKinds {
			t.Run(c.name+"/"+k.Name, func(t *testing.T) {
				if c.name == "no-pmu" && machine().Core != nil {
					t.Skip("this machine has a hardware PMU: cycles opens, nothing aborts")
				}
				dir := t.TempDir()
				var fill func()
				if c.full {
					dir, fill = fullTmpfs(t, "256k")
				}
				p, others := k.Make(t, dir)
				watch := append([]string{p, p + ".old"}, others...)
				if fill != nil {
					fill()
				}
				before := testenv.PathStates(watch)
				var stdout, stderr bytes.Buffer
				args := append([]string{"record", "-o", p}, c.args...)
				code := testRun(args, &stdout, &stderr)
				switch {
				case c.full && k.Name == "chardev":
					// A device is written where it is: the full disk is not its.
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr.String())
					}
				case code == 0:
					t.Fatalf("exit 0, want a failure: %s", stderr.String())
				case strings.Count(stderr.String(), "\n") != 1:
					t.Errorf("want one line of error, got %q", stderr.String())
				}
				if after := testenv.PathStates(watch); after != before {
					t.Errorf("%s:\nbefore %s\nafter  %s", stderr.String(), before, after)
				}
				testenv.NoTempFiles(t, dir)
			})
		}
	}
}

// TestRecordInterruptedPaths: pmc record -a ended by SIGINT finishes its recording: the file
// is at the path (perf reads it), the previous recording at PATH.old (a symlink moved
// itself, as perf moves it), a device stays a device.
func TestRecordInterruptedPaths(t *testing.T) {
	for _, k := range testenv.PathKinds {
		t.Run(k.Name, func(t *testing.T) {
			dir := t.TempDir()
			p, others := k.Make(t, dir)
			before, othersBefore := testenv.PathState(p), testenv.PathStates(others)
			cmd := pmcCmd(t, "record", "-a", "-e", "cpu-clock", "-F", "1000", "-o", p)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if k.Refused == "" {
				waitSampling(t, cmd, 200*time.Millisecond)
				cmd.Process.Signal(os.Interrupt)
			}
			err := waitTimeout(t, cmd, 2*time.Minute)
			if k.Refused != "" {
				if err == nil || !strings.Contains(stderr.String(), k.Refused) || testenv.PathState(p) != before {
					t.Fatalf("%v: %s; %s", err, stderr.String(), testenv.PathState(p))
				}
				return
			}
			if err != nil {
				t.Fatalf("pmc record -a, SIGINT: %v\n%s", err, stderr.String())
			}
			testenv.NoTempFiles(t, dir)
			switch k.Name {
			case "chardev":
				if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("the device became %v", fi.Mode())
				}
				return
			case "dangling-symlink":
				if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeSymlink == 0 {
					t.Fatalf("the dangling link was replaced: %s", testenv.PathState(p))
				}
			}
			if f, err := perfdata.Open(p); err != nil {
				t.Fatalf("the recording: %v", err)
			} else {
				f.Close()
			}
			old := testenv.PathState(p + ".old")
			switch {
			case k.Rotated && old != before:
				t.Errorf("%s.old is %s, want the previous %s", p, old, before)
			case !k.Rotated && old != "absent":
				t.Errorf("%s.old appeared: %s", p, old)
			}
			if k.Name == "symlink" && testenv.PathStates(others) != othersBefore {
				t.Errorf("the link's target changed: %s, was %s", testenv.PathStates(others), othersBefore)
			}
		})
	}
}

// waitSampling waits until pmc record has opened its counters (a perf_event fd in
// /proc/PID/fd) and a little more, so that SIGINT ends a recording rather than its set-up.
func waitSampling(t *testing.T, cmd *exec.Cmd, then time.Duration) {
	t.Helper()
	fdDir := fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ents, err := os.ReadDir(fdDir)
		if err != nil {
			t.Fatalf("pmc record exited before sampling: %v", err)
		}
		for _, e := range ents {
			if l, _ := os.Readlink(filepath.Join(fdDir, e.Name())); strings.Contains(l, "perf_event") {
				time.Sleep(then)
				return
			}
		}
	}
	t.Fatal("pmc record opened no counter in 2 minutes")
}

// waitTimeout waits for cmd; a generous timeout only detects a hang: then the process
// is sent SIGQUIT (its goroutines go to its stderr) and killed, and the test fails.
func waitTimeout(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Signal(unix.SIGQUIT)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if b, ok := cmd.Stderr.(*bytes.Buffer); ok {
			t.Log(b.String())
		}
		t.Fatalf("pmc %v hangs: still running %v after its end (SIGINT or the target's exit)", cmd.Args[1:], d)
		return nil
	}
}

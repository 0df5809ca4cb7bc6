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
	"github.com/pmc-tools/pmc/internal/unix"
)

// recordPath is one kind of -o path for pmc record: make creates it in dir and returns the
// path and the other paths whose state must be watched (a symlink's target).
type recordPath struct {
	name    string
	make    func(t *testing.T, dir string) (path string, others []string)
	rotated bool   // a finished recording moves the path to path.old
	refused string // pmc refuses the path before recording
}

var recordPaths = []recordPath{
	{name: "new", make: func(t *testing.T, dir string) (string, []string) { return filepath.Join(dir, "perf.data"), nil }},
	{name: "regular", rotated: true, make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "previous recording", 0o640)
		if os.Geteuid() == 0 {
			os.Chown(p, 65534, 65534)
		}
		return p, nil
	}},
	{name: "symlink", rotated: true, make: func(t *testing.T, dir string) (string, []string) {
		tgt := filepath.Join(dir, "tgt")
		writeFile(t, tgt, "x\n", 0o644)
		p := filepath.Join(dir, "lnk")
		os.Symlink("tgt", p)
		return p, []string{tgt}
	}},
	{name: "dangling-symlink", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "lnk")
		os.Symlink("created", p)
		return p, []string{filepath.Join(dir, "created")}
	}},
	{name: "chardev", make: func(t *testing.T, dir string) (string, []string) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to make a device node (mknod)")
		}
		p := filepath.Join(dir, "mynull")
		if out, err := exec.Command("mknod", "-m", "666", p, "c", "1", "3").CombinedOutput(); err != nil {
			t.Fatalf("mknod: %v %s", err, out)
		}
		return p, nil
	}},
	{name: "fifo", refused: "is a FIFO", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "fifo")
		if err := unix.Mkfifo(p, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		return p, nil
	}},
	{name: "with-old", rotated: true, make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "previous", 0o644)
		writeFile(t, p+".old", "older", 0o600)
		return p, nil
	}},
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// pathState is what a user could notice of a path: kind, mode, owner, link, content.
func pathState(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	uid, gid, _, _ := unix.FileOwner(fi)
	s := fmt.Sprintf("%v %d:%d", fi.Mode(), uid, gid)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		l, _ := os.Readlink(path)
		s += " -> " + l
	case fi.Mode().IsRegular():
		b, _ := os.ReadFile(path)
		if len(b) > 64 {
			b = b[:64]
		}
		s += fmt.Sprintf(" %q", b)
	}
	return s
}

func pathStates(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "[%s: %s] ", filepath.Base(p), pathState(p))
	}
	return b.String()
}

// noTempFiles fails when pmc left a temporary file in dir.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

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
		for _, k := range recordPaths {
			t.Run(c.name+"/"+k.name, func(t *testing.T) {
				if c.name == "no-pmu" && machine().Core != nil {
					t.Skip("this machine has a hardware PMU: cycles opens, nothing aborts")
				}
				dir := t.TempDir()
				var fill func()
				if c.full {
					dir, fill = fullTmpfs(t, "256k")
				}
				p, others := k.make(t, dir)
				watch := append([]string{p, p + ".old"}, others...)
				if fill != nil {
					fill()
				}
				before := pathStates(watch)
				var stdout, stderr bytes.Buffer
				args := append([]string{"record", "-o", p}, c.args...)
				code := testRun(args, &stdout, &stderr)
				if k.name == "chardev" && c.full {
					// A device is written in place: a full disk elsewhere changes nothing.
					code = 1
				}
				if code == 0 {
					t.Fatalf("exit 0, want a failure: %s", stderr.String())
				}
				if strings.Count(stderr.String(), "\n") != 1 {
					t.Errorf("want one line of error, got %q", stderr.String())
				}
				if after := pathStates(watch); after != before {
					t.Errorf("%s:\nbefore %s\nafter  %s", stderr.String(), before, after)
				}
				noTempFiles(t, dir)
			})
		}
	}
}

// TestRecordInterruptedPaths: pmc record -a ended by SIGINT finishes its recording: the file
// is at the path (perf reads it), the previous recording at PATH.old (a symlink moved
// itself, as perf moves it), a device stays a device.
func TestRecordInterruptedPaths(t *testing.T) {
	for _, k := range recordPaths {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			p, others := k.make(t, dir)
			before, othersBefore := pathState(p), pathStates(others)
			cmd := pmcCmd(t, "record", "-a", "-e", "cpu-clock", "-F", "1000", "-o", p)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if k.refused == "" {
				waitSampling(t, cmd, 200*time.Millisecond)
				cmd.Process.Signal(os.Interrupt)
			}
			err := waitTimeout(t, cmd, 2*time.Minute)
			if k.refused != "" {
				if err == nil || !strings.Contains(stderr.String(), k.refused) || pathState(p) != before {
					t.Fatalf("%v: %s; %s", err, stderr.String(), pathState(p))
				}
				return
			}
			if err != nil {
				t.Fatalf("pmc record -a, SIGINT: %v\n%s", err, stderr.String())
			}
			noTempFiles(t, dir)
			switch k.name {
			case "chardev":
				if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("the device became %v", fi.Mode())
				}
				return
			case "dangling-symlink":
				if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeSymlink == 0 {
					t.Fatalf("the dangling link was replaced: %s", pathState(p))
				}
			}
			if f, err := perfdata.Open(p); err != nil {
				t.Fatalf("the recording: %v", err)
			} else {
				f.Close()
			}
			old := pathState(p + ".old")
			switch {
			case k.rotated && old != before:
				t.Errorf("%s.old is %s, want the previous %s", p, old, before)
			case !k.rotated && old != "absent":
				t.Errorf("%s.old appeared: %s", p, old)
			}
			if k.name == "symlink" && pathStates(others) != othersBefore {
				t.Errorf("the link's target changed: %s, was %s", pathStates(others), othersBefore)
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

// waitTimeout waits for cmd; a generous timeout only detects a hang (then the process is
// killed and the test fails).
func waitTimeout(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("pmc %v hangs: still running %v after its end (SIGINT or the target's exit)", cmd.Args[1:], d)
		return nil
	}
}

package launch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/launch/shim"
	"github.com/pmc-tools/pmc/internal/unix"
)

// run starts c, execs it and waits, failing the test on any launch error.
func run(t *testing.T, c Cmd) Status {
	t.Helper()
	ch, err := Start(c)
	if err != nil {
		t.Fatalf("Start(%q): %v", c.Args, err)
	}
	if err := ch.Exec(); err != nil {
		t.Fatalf("Exec: %v", err)
	}
	st, err := ch.Wait(context.Background())
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return st
}

func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		code     int
		signaled bool
	}{
		{[]string{"true"}, 0, false},
		{[]string{"false"}, 1, false},
		{[]string{"sh", "-c", "exit 3"}, 3, false},
		{[]string{"sh", "-c", "exit 255"}, 255, false},
		{[]string{"sh", "-c", "kill -KILL $$"}, 128 + 9, true},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + 15, true},
	} {
		st := run(t, Cmd{Args: tc.args})
		if st.ExitCode() != tc.code || st.Signaled != tc.signaled || st.ExecErr != nil {
			t.Errorf("%q: ExitCode %d signaled %v execErr %v, want %d %v nil",
				tc.args, st.ExitCode(), st.Signaled, st.ExecErr, tc.code, tc.signaled)
		}
		if st.Elapsed <= 0 || st.Elapsed > 2*time.Second {
			t.Errorf("%q: Elapsed %v", tc.args, st.Elapsed)
		}
	}
}

func TestNotFound(t *testing.T) {
	for _, name := range []string{"pmc-no-such-command", "./pmc-no-such-file", "/nonexistent/dir/x"} {
		_, err := LookPath(name)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.ExitCode() != 127 {
			t.Fatalf("LookPath(%q) = %v, want an *ExecError with status 127", name, err)
		}
		if want := "command not found: " + name; err.Error() != want {
			t.Errorf("LookPath(%q) error %q, want %q", name, err, want)
		}
		_, err = Start(Cmd{Args: []string{name}})
		if !errors.As(err, &ee) || ee.ExitCode() != 127 {
			t.Errorf("Start(%q) = %v, want status 127", name, err)
		}
	}
}

func TestNotExecutable(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\nexit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want unix.Errno
		msg  string
	}{
		{plain, unix.EACCES, "cannot execute " + plain + ": permission denied"},
		{sub, unix.EISDIR, "cannot execute " + sub + ": is a directory"},
	} {
		_, err := LookPath(tc.name)
		var ee *ExecError
		if !errors.As(err, &ee) || ee.ExitCode() != 126 || !errors.Is(err, tc.want) {
			t.Fatalf("LookPath(%q) = %v, want an *ExecError %v with status 126", tc.name, err, tc.want)
		}
		if err.Error() != tc.msg {
			t.Errorf("error %q, want %q", err, tc.msg)
		}
	}
	// Through $PATH: a non-executable file is 126 unless an executable one comes later.
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	if _, err := LookPath("plain"); err == nil || err.(*ExecError).ExitCode() != 126 {
		t.Errorf("LookPath(plain) in PATH = %v, want status 126", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "true"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := LookPath("true"); err != nil || !strings.HasSuffix(p, "bin/true") {
		t.Errorf("LookPath(true) = %q, %v; want the executable later in PATH", p, err)
	}
	if _, err := LookPath("sub"); err == nil || err.(*ExecError).ExitCode() != 126 {
		t.Errorf("LookPath(sub) in PATH = %v, want status 126", err)
	}
}

// The exec in the shim fails after LookPath succeeded: the error comes back through the
// close-on-exec pipe, and the status is the shell's.
func TestExecErrorInShim(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ch, err := Start(Cmd{Args: []string{script}, Path: script})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(script, 0o644); err != nil { // too late for LookPath, in time for exec
		t.Fatal(err)
	}
	ch.Exec()
	st, err := ch.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.ExitCode() != 126 || !errors.Is(st.ExecErr, unix.EACCES) {
		t.Errorf("status %d, ExecErr %v; want 126 and permission denied", st.ExitCode(), st.ExecErr)
	}

	// A binary for no machine: ENOEXEC, not retried with /bin/sh.
	bin := filepath.Join(dir, "bin")
	if err := os.WriteFile(bin, []byte("\x7fELF\x00\x00\x00garbage\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	st = run(t, Cmd{Args: []string{bin}})
	if st.ExitCode() != 126 || !errors.Is(st.ExecErr, unix.ENOEXEC) {
		t.Errorf("binary: status %d, ExecErr %v; want 126 and exec format error", st.ExitCode(), st.ExecErr)
	}
	if want := "cannot execute " + bin + ": exec format error"; st.ExecErr != nil && st.ExecErr.Error() != want {
		t.Errorf("binary: %q, want %q", st.ExecErr, want)
	}

	// A script without #! runs with /bin/sh, as with execvp and shells.
	noShebang := filepath.Join(dir, "plain-script")
	if err := os.WriteFile(noShebang, []byte("exit 4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st := run(t, Cmd{Args: []string{noShebang}}); st.ExitCode() != 4 || st.ExecErr != nil {
		t.Errorf("script without #!: status %d, ExecErr %v; want 4", st.ExitCode(), st.ExecErr)
	}
	// A workload's own 127 is not an exec error.
	if st := run(t, Cmd{Args: []string{"sh", "-c", "exit 127"}}); st.ExitCode() != 127 || st.ExecErr != nil {
		t.Errorf("exit 127: status %d, ExecErr %v", st.ExitCode(), st.ExecErr)
	}
}

// argv, environment, working directory and standard streams reach the workload exactly; the
// shim's variable does not.
func TestPassThrough(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	const input = "line one\n\x00binary\xff tail"
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	args := []string{"argv0-is-free", "", "two words", "ünïcode", "--flag=x", "-"}
	env := []string{testModeEnv + "=dump", "A=1", "EMPTY=", "DUP=first", "DUP=second", "Z=a=b=c",
		shim.Env + "=stale"} // a stale copy must not survive either
	st := run(t, Cmd{Path: exe, Args: args, Env: env, Dir: dir, Stdin: stdin, Stdout: stdout})
	if st.ExitCode() != 0 {
		t.Fatalf("dump exited %d", st.ExitCode())
	}
	b, err := os.ReadFile(stdout.Name())
	if err != nil {
		t.Fatal(err)
	}
	var d dumped
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%v in %q", err, b)
	}
	if strings.Join(d.Args, "\x00") != strings.Join(args, "\x00") {
		t.Errorf("argv %q, want %q", d.Args, args)
	}
	wantEnv := env[:len(env)-1]
	if strings.Join(d.Env, "\x00") != strings.Join(wantEnv, "\x00") {
		t.Errorf("env %q, want %q", d.Env, wantEnv)
	}
	if d.Cwd != dir {
		t.Errorf("cwd %q, want %q", d.Cwd, dir)
	}
	if string(d.Stdin) != input {
		t.Errorf("stdin %q, want %q", d.Stdin, input)
	}
}

// A relative Path is relative to Dir, and $PATH of Cmd.Env is the one searched.
func TestRelativeToDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w"), []byte("#!/bin/sh\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st := run(t, Cmd{Args: []string{"./w"}, Dir: dir}); st.ExitCode() != 7 {
		t.Errorf("./w in Dir: status %d, want 7", st.ExitCode())
	}
	env := []string{"PATH=" + dir}
	if st := run(t, Cmd{Args: []string{"w"}, Env: env}); st.ExitCode() != 7 {
		t.Errorf("w in Env's PATH: status %d, want 7", st.ExitCode())
	}
	_, err := Start(Cmd{Args: []string{"true"}, Dir: filepath.Join(dir, "none")})
	if err == nil || !strings.Contains(err.Error(), "working directory") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing Dir: %v", err)
	}
}

// Kill before Exec: the workload never runs.
func TestKillBeforeExec(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	ch, err := Start(Cmd{Args: []string{"sh", "-c", "touch " + mark}})
	if err != nil {
		t.Fatal(err)
	}
	ch.Kill()
	st, err := ch.Wait(context.Background())
	if err != nil || st.ExitCode() != 128+9 {
		t.Errorf("after Kill: status %d, %v; want 137", st.ExitCode(), err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the workload ran after Kill")
	}
	if err := ch.Signal(unix.SIGTERM); err != os.ErrProcessDone {
		t.Errorf("Signal after Wait = %v, want ErrProcessDone", err)
	}
}

// A context that ends first sends SIGTERM and Wait still returns the status.
func TestWaitContext(t *testing.T) {
	ch, err := Start(Cmd{Args: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	ch.Exec()
	// The context's clock starts once the workload runs (a loaded machine can take long to
	// get the shim there), so the workload's elapsed time is at least the 200 ms.
	waitComm(t, ch.Pid(), "sleep")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	st, err := ch.Wait(ctx)
	outer := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if st.ExitCode() != 128+15 || !st.Terminated {
		t.Errorf("status %d terminated %v, want 143 true", st.ExitCode(), st.Terminated)
	}
	if st.Elapsed < 200*time.Millisecond || st.Elapsed > outer {
		t.Errorf("Elapsed %v: want at least the 200 ms and at most the %v from Exec to Wait", st.Elapsed, outer)
	}
}

// Wait without Exec does not hang: the shim exits without running the workload.
func TestWaitWithoutExec(t *testing.T) {
	ch, err := Start(Cmd{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ch.Wait(context.Background())
	if err != nil || st.ExitCode() != StatusShimAborted || st.Elapsed != 0 {
		t.Errorf("status %d elapsed %v, %v; want %d", st.ExitCode(), st.Elapsed, err, StatusShimAborted)
	}
}

// Every fd a launch opens is closed after Wait, and the workload inherits none of them.
func TestNoFDLeak(t *testing.T) {
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := count()
	out, err := os.CreateTemp(t.TempDir(), "fds")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// ls lists its fds: 0-2, the one it opened for the directory, and whatever pmc itself
	// inherited without close-on-exec (which a direct exec passes on as well).
	run(t, Cmd{Args: []string{"ls", "/proc/self/fd"}, Stdout: out})
	direct, err := exec.Command("ls", "/proc/self/fd").Output()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		run(t, Cmd{Args: []string{"true"}})
	}
	ch, _ := Start(Cmd{Args: []string{"true"}})
	ch.Kill()
	if after := count(); after != before+1 { // +1: out
		t.Errorf("%d fds open after the runs, %d before (+1 expected)", after, before)
	}
	b, _ := os.ReadFile(out.Name())
	if string(b) != string(direct) {
		t.Errorf("the workload has fds %q, a direct exec %q", b, direct)
	}
}

// Kernels without pidfd (< 5.3): Wait falls back to wait4 and Signal to kill(2).
func TestWithoutPidfd(t *testing.T) {
	noPidfd = true
	defer func() { noPidfd = false }()
	if st := run(t, Cmd{Args: []string{"sh", "-c", "exit 3"}}); st.ExitCode() != 3 {
		t.Errorf("exit 3: status %d", st.ExitCode())
	}
	ch, err := Start(Cmd{Args: []string{"sleep", "5"}})
	if err != nil {
		t.Fatal(err)
	}
	if ch.pidfd != nil {
		t.Fatal("noPidfd ignored")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	ch.Exec()
	st, err := ch.Wait(ctx)
	if err != nil || st.ExitCode() != 143 || !st.Terminated {
		t.Errorf("status %d terminated %v, %v; want 143 true", st.ExitCode(), st.Terminated, err)
	}
	ch, err = Start(Cmd{Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	ch.Kill()
	if st, _ := ch.Wait(context.Background()); st.ExitCode() != 137 {
		t.Errorf("after Kill: status %d, want 137", st.ExitCode())
	}
}

// TestBadInterpreter: a script whose #! program does not exist is reported as such (it said
// "command not found", although the script is there), with bash 5.2's status 127.
func TestBadInterpreter(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s")
	os.WriteFile(script, []byte("#!/nonexistent/sh\necho hi\n"), 0o755)
	st := run(t, Cmd{Args: []string{script}})
	var e *ExecError
	if !errors.As(st.ExecErr, &e) || e.Interpreter != "/nonexistent/sh" || st.ExitCode() != 127 ||
		!strings.Contains(e.Error(), "bad interpreter /nonexistent/sh") {
		t.Errorf("status %d, err %v", st.ExitCode(), st.ExecErr)
	}
}

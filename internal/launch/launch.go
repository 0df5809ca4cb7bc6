package launch

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/pmc-tools/pmc/internal/launch/shim"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Cmd is a workload to run.
type Cmd struct {
	// Path is the file to exec, normally from LookPath. If empty, Start resolves Args[0]
	// with the $PATH of Env. A relative Path is relative to Dir, as in os/exec.
	Path string
	Args []string // argv, Args[0] included; required
	Env  []string // the exact environment; nil means os.Environ()
	Dir  string   // working directory; "" means pmc's
	// Standard streams of the workload; nil means /dev/null.
	Stdin, Stdout, Stderr *os.File
}

// Child is a started shim, blocked before the exec of its workload. Its methods are not
// safe for concurrent use, except Signal and Pid.
type Child struct {
	pid     int
	path    string
	name    string
	pidfd   *os.File // nil when the kernel has no pidfd; then Wait uses wait4
	tiny    bool     // started by the tiny shim (package tiny), else by pmc's own binary
	ownRSS  bool     // wait's peak RSS is the workload's own (the tiny shim's clone)
	goW     int      // write end of the go pipe; -1 once Exec (or Kill) closed it
	errR    int      // read end of the record pipe (non-blocking); -1 once read
	start   time.Time
	endMono time.Duration // CLOCK_MONOTONIC when the exit was seen

	mu         sync.Mutex // guards done and terminated against Signal and Wait's context
	done       bool
	terminated bool
	status     Status
	err        error
}

// noPidfd makes Start behave as on a kernel without pidfd_open (tests of the wait4 path).
var noPidfd bool

// shimFDs are the fds the go and record pipes get in the shim (after stdin, stdout, stderr).
const (
	shimGoFD    = 3
	shimErrFD   = 4
	shimReadyFD = 5
)

// Start starts the shim (package tiny's, else a copy of pmc that runs nothing of pmc), which
// waits for Exec, then execs c.Path. When Start returns the child exists with its final pid, so
// counters can be opened on Pid() with enable_on_exec. Errors: an *ExecError (exit status
// 127 or 126) when the command cannot be run, else the failing system call.
func Start(c Cmd) (*Child, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("launch: no command given")
	}
	if c.Dir != "" {
		if st, err := os.Stat(c.Dir); err != nil || !st.IsDir() {
			if err == nil {
				err = unix.ENOTDIR
			}
			return nil, fmt.Errorf("launch: working directory: %w", err)
		}
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	path := c.Path
	if path == "" {
		var err error
		if path, err = lookPath(c.Args[0], c.Dir, envValue(env, "PATH")); err != nil {
			return nil, err
		}
	} else if err := checkExec(inDir(c.Dir, path)); err != nil {
		return nil, &ExecError{Name: c.Args[0], Path: path, Err: err}
	}

	var files [3]*os.File
	for i, f := range []*os.File{c.Stdin, c.Stdout, c.Stderr} {
		if f == nil {
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				return nil, fmt.Errorf("launch: %w", err)
			}
			defer null.Close()
			f = null
		}
		files[i] = f
	}
	goR, goW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		unix.Close(goR)
		unix.Close(goW)
		return nil, fmt.Errorf("launch: %w", err)
	}
	readyR, readyW, err := pipe()
	if err != nil {
		unix.Close(goR)
		unix.Close(goW)
		unix.Close(errR)
		unix.Close(errW)
		return nil, fmt.Errorf("launch: %w", err)
	}
	defer unix.Close(readyR)
	attr := &unix.ProcAttr{
		Dir: c.Dir,
		// Fd() also puts the stdio files in blocking mode, as the workload expects.
		Files: []uintptr{files[0].Fd(), files[1].Fd(), files[2].Fd(), uintptr(goR), uintptr(errW), uintptr(readyW)},
	}
	pid, tinyUsed, ownRSS, err := startShim(path, env, c, attr, readyR)
	runtime.KeepAlive(files)
	unix.Close(goR)
	unix.Close(errW)
	unix.Close(readyW)
	if err != nil {
		unix.Close(goW)
		unix.Close(errR)
		return nil, err
	}
	ch := &Child{pid: pid, path: path, name: c.Args[0], goW: goW, errR: errR, tiny: tinyUsed, ownRSS: ownRSS}
	// Read after exit only, but never block on it: a stray copy of the write end (an fd
	// inherited by a process forked elsewhere in pmc at this moment) must not hang Wait.
	if err := setBlocking(errR, false); err != nil {
		ch.Kill()
		return nil, fmt.Errorf("launch: %w", err)
	}
	pidfd, err := pidfdOpen(pid)
	if noPidfd {
		if err == nil {
			unix.Close(pidfd)
		}
		err = errNoPidfd
	}
	switch {
	case err == nil:
		// Non-blocking, so os.NewFile registers it with Go's poller: Wait parks on it.
		if err := setBlocking(pidfd, false); err != nil {
			unix.Close(pidfd)
			ch.Kill()
			return nil, fmt.Errorf("launch: %w", err)
		}
		ch.pidfd = os.NewFile(uintptr(pidfd), "pidfd:"+strconv.Itoa(pid))
	case errors.Is(err, errNoPidfd):
	default:
		ch.Kill()
		return nil, fmt.Errorf("launch: %w", err)
	}
	return ch, nil
}

func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			v = kv[len(name)+1:] // the last one wins, as in getenv of most libcs' setenv
		}
	}
	return v
}

// Pid is the child's pid: the shim's now, the workload's after Exec (exec keeps the pid).
func (ch *Child) Pid() int { return ch.pid }

// Path is the file the shim execs.
func (ch *Child) Path() string { return ch.path }

// Exec lets the shim exec the workload; the wall clock of Status.Elapsed starts here. It does
// not wait for the exec: an exec failure shows up in Wait's Status.ExecErr.
func (ch *Child) Exec() error {
	if ch.goW < 0 {
		return errors.New("launch: Exec called twice or after Kill")
	}
	ch.start = time.Now()
	_, err := unix.Write(ch.goW, []byte{1})
	for err == unix.EINTR {
		_, err = unix.Write(ch.goW, []byte{1})
	}
	unix.Close(ch.goW)
	ch.goW = -1
	if err != nil {
		return fmt.Errorf("launch: releasing the workload: %w", err) // EPIPE: the shim died
	}
	return nil
}

// Signal sends sig to the child (through its pidfd when there is one, so never to a reused
// pid). After Wait returned it reports os.ErrProcessDone.
func (ch *Child) Signal(sig os.Signal) error {
	s, ok := sig.(unix.Signal)
	if !ok {
		return fmt.Errorf("launch: unsupported signal %v", sig)
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.done {
		return os.ErrProcessDone
	}
	return ch.signalLocked(s)
}

func (ch *Child) signalLocked(s unix.Signal) error {
	if ch.pidfd != nil {
		rc, err := ch.pidfd.SyscallConn()
		if err != nil {
			return err
		}
		var serr error
		if err := rc.Control(func(fd uintptr) { serr = pidfdSignal(int(fd), s) }); err != nil {
			return err
		}
		return serr
	}
	return unix.Kill(ch.pid, s)
}

// Kill ends a child whose session failed before (or instead of) Exec: SIGKILL, then reap.
// It is a no-op once Wait has returned.
func (ch *Child) Kill() {
	// SIGKILL first: closing the go pipe first would let a waiting shim see EOF and exit 125
	// on its own, a race with the kill's 137.
	done := ch.Signal(unix.SIGKILL) == os.ErrProcessDone
	if ch.goW >= 0 {
		unix.Close(ch.goW) // the shim would see EOF and exit without running anything
		ch.goW = -1
	}
	if done {
		return
	}
	ch.reap()
}

// startShim starts the tiny shim, or pmc's own binary as the shim when the tiny one cannot
// run, and returns the pid that will exec the workload once the shim is ready for counters.
func startShim(path string, env []string, c Cmd, attr *unix.ProcAttr, readyR int) (pid int, tinyUsed, ownRSS bool, err error) {
	env = shim.WithoutVar(env, shim.Env) // a stale copy would make a Go workload's pmc a shim
	if shimPath, terr := tinyPath(); terr == nil {
		attr.Env = env
		pid, ownRSS, err = startTiny(shimPath, tinyArgv(path, c.Dir, c.Args), attr, readyR)
		if err == nil {
			return pid, true, ownRSS, nil
		}
		_, refusedExec := err.(unix.Errno)
		var died *tinyDiedError
		if !refusedExec && !errors.As(err, &died) {
			return 0, false, false, fmt.Errorf("launch: %w", err)
		}
		// The kernel refused the shim's exec (ENOEXEC under a user-mode emulator, EACCES
		// from a policy on memfds...) or ran something else that died: pmc's own binary
		// below; if that works, for good.
		refused := err
		defer func() {
			if err == nil {
				refuseTinyShim(fmt.Errorf("exec: %w", refused))
			}
		}()
	}
	spec := shim.Spec{GoFD: shimGoFD, ErrFD: shimErrFD, ReadyFD: shimReadyFD, Path: path}.String()
	attr.Env = append(env, shim.Env+"="+spec)
	pid, err = unix.ForkExec("/proc/self/exe", c.Args, attr)
	if err == nil {
		// Wait until the shim's runtime is up (see shim): counters opened after Start
		// returns are inherited by no thread but the one that execs. EOF (the shim died
		// first) also ends the wait; Wait then reports the shim's status.
		var b [1]byte
		readFull(readyR, b[:])
		return pid, false, false, nil
	}
	if err == unix.ENOEXEC {
		// The kernel cannot run pmc's own binary: pmc itself runs under a user-mode
		// emulator (qemu-arm on an x86 machine) and no binfmt_misc handler passes the
		// shim to it.
		return 0, false, false, fmt.Errorf("launch: pmc cannot start itself again as the launch shim (/proc/self/exe: %w): "+
			"it runs under a user-mode emulator without binfmt_misc; run pmc on the machine's own architecture", err)
	}
	return 0, false, false, fmt.Errorf("launch: starting the shim: %w", err)
}

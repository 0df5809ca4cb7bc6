// Package shim is the process internal/launch re-executes pmc as: it waits for its parent
// to attach the counters, then execs the workload on the counted thread. It runs in this
// package's init and never returns to pmc.
//
// Go's linker orders package initialisation by dependencies and, among the packages ready,
// by import path, so a package runs early only if everything it imports (even packages with
// no init of their own, such as strings, which waits for unicode) is ready early and sorts
// early. This one imports errors, os, runtime, strconv and the shim's system calls
// (internal/unix/early: syscall alone), and not strings: the shim then runs before the
// packages of pmc's commands (the exporter's HTTP and Prometheus libraries, pprof, the
// disassemblers) initialise, and a launch pays the Go runtime's start and a few small
// packages, not all of pmc's. GODEBUG=inittrace=1 shows the order; TestShimRunsEarly checks
// it on pmc's binary.
package shim

import (
	"errors"
	"os"
	"runtime"
	"strconv"

	"github.com/pmc-tools/pmc/internal/unix/early"
)

// Env marks a process as the launch shim. Its value is "2:GOFD:ERRFD:READYFD:PATH" (see
// Spec). The shim's argv is the workload's argv and its environment the workload's plus
// this variable.
const Env = "PMC_LAUNCH_SHIM"

// Exit statuses of a shim that did not exec its workload.
const (
	// StatusAborted: the parent went away (or gave up) before the go byte; nothing ran.
	StatusAborted = 125
	// StatusNotFound and StatusNotExecutable are a shell's statuses for an exec that failed
	// because the file is missing (ENOENT, ENOTDIR), or for any other reason.
	StatusNotFound      = 127
	StatusNotExecutable = 126
)

// The shim runs before main: pmc's own flags, config and output are never touched. The main
// goroutine is on the main thread during init; LockOSThread keeps it there, so the exec below
// happens on the thread the parent attached its counters to (enable_on_exec fires for the
// exec'ing thread; exec from any other thread would leave every counter at 0).
func init() {
	spec, ok := early.Getenv(Env)
	if !ok {
		return
	}
	runtime.LockOSThread()
	os.Exit(run(spec))
}

// Spec is what a shim gets from its parent: the fd of the pipe the "go" byte arrives on, the
// fd of the close-on-exec pipe that carries records back to the parent, the fd on which it
// says it is ready, and the resolved path of the workload.
type Spec struct {
	GoFD, ErrFD, ReadyFD int
	Path                 string
}

// String is the value of Env for s.
func (s Spec) String() string {
	return "2:" + strconv.Itoa(s.GoFD) + ":" + strconv.Itoa(s.ErrFD) + ":" + strconv.Itoa(s.ReadyFD) + ":" + s.Path
}

// ParseSpec reads "2:GOFD:ERRFD:READYFD:PATH": three distinct fds above stdio, then the path
// (which may contain colons).
func ParseSpec(spec string) (Spec, error) {
	f := splitN(spec, ':', 5)
	if len(f) != 5 || f[0] != "2" || f[4] == "" {
		return Spec{}, errors.New("want 2:GOFD:ERRFD:READYFD:PATH")
	}
	var fds [3]int
	for i, name := range []string{"GOFD", "ERRFD", "READYFD"} {
		n, err := strconv.Atoi(f[i+1])
		if err != nil || n < 3 || strconv.Itoa(n) != f[i+1] {
			return Spec{}, errors.New("bad " + name)
		}
		for _, prev := range fds[:i] {
			if prev == n {
				return Spec{}, errors.New("repeated fd " + f[i+1])
			}
		}
		fds[i] = n
	}
	return Spec{GoFD: fds[0], ErrFD: fds[1], ReadyFD: fds[2], Path: f[4]}, nil
}

// run waits for the go byte, then execs the workload; it returns only if that failed.
func run(spec string) int {
	s, err := ParseSpec(spec)
	if err != nil {
		writeRecord(2, "pmc: "+Env+" is for pmc's own use ("+err.Error()+"); unset it\n")
		return StatusAborted
	}
	// The parent's ends may have been non-blocking (O_NONBLOCK is shared by the file
	// description), and the workload must not inherit either pipe.
	for _, fd := range []int{s.GoFD, s.ErrFD} {
		if early.SetBlocking(fd) != nil || early.SetCloseOnExec(fd) != nil {
			return StatusAborted
		}
	}
	// Tell the parent the runtime is up (every start-up thread exists) and it may attach the
	// counters now: a thread created after that would inherit them, never exec, and make
	// the inherited counters' enabled times disagree under multiplexing. The read below is
	// a raw syscall so that the runtime does not hand the blocked thread's P to a new one.
	var b [1]byte
	writeRecord(s.ReadyFD, "R")
	early.Close(s.ReadyFD)
	n, err := early.RawRead(s.GoFD, b[:])
	for err == early.EINTR {
		n, err = early.RawRead(s.GoFD, b[:])
	}
	if n != 1 {
		return StatusAborted // EOF: the parent exited or gave up before Exec
	}
	early.Close(s.GoFD)

	env := WithoutVar(initialEnv(), Env)
	// The shim's own CPU time (Go start-up) is in the rusage the parent gets from wait:
	// leave a record of it so the parent can take it out. Nothing reads this pipe before the
	// child exits, so the write wakes no one. Its peak RSS too: the kernel keeps the
	// process's high-water mark across the exec, and it holds the shim's own and pmc's (the
	// shim was started by a vfork of pmc, sharing its memory); the parent reports the peak
	// from wait only when the workload went above it (launch.Status.MaxRSSKB).
	if u, sys, rss, err := early.Usage(); err == nil {
		writeRecord(s.ErrFD, "r "+strconv.FormatInt(u, 10)+" "+strconv.FormatInt(sys, 10)+"\nm "+strconv.FormatInt(rss, 10)+"\n")
	}
	// And the moment of the exec, so the workload's wall time starts there rather than when
	// pmc released a shim that may still have been starting up.
	writeRecord(s.ErrFD, "t "+strconv.FormatInt(early.Monotonic(), 10)+"\n")
	// syscall.Exec restores the RLIMIT_NOFILE soft limit that Go raised at the shim's
	// start-up. The shim started with the parent's original limit (os.StartProcess and
	// syscall.ForkExec restore it in every child), so the workload gets the limit pmc had.
	err = early.Exec(s.Path, os.Args, env)
	if err == early.ENOEXEC && !LooksBinary(s.Path) {
		// A text file without #!: run it with /bin/sh, as execvp(3) and shells do.
		argv := append([]string{"/bin/sh", s.Path}, os.Args[1:]...)
		if err2 := early.Exec("/bin/sh", argv, env); err2 != early.ENOENT {
			err = err2
		}
	}
	errno, ok := err.(early.Errno)
	if !ok {
		errno = early.EINVAL
	}
	writeRecord(s.ErrFD, "e "+strconv.Itoa(int(errno))+"\n")
	if errno == early.ENOENT || errno == early.ENOTDIR {
		return StatusNotFound
	}
	return StatusNotExecutable
}

// initialEnv is the environment exactly as the shim received it. Go's Environ drops
// duplicate names, and a workload must get duplicates too (a shell passes them on).
func initialEnv() []string {
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return early.Environ()
	}
	env := splitN(string(b), 0, -1)
	if len(env) > 0 && env[len(env)-1] == "" {
		env = env[:len(env)-1]
	}
	return env
}

// splitN is strings.SplitN for a one-byte separator (n < 0: no limit); package strings is
// not imported, see the package comment.
func splitN(s string, sep byte, n int) []string {
	var out []string
	for len(out) != n-1 {
		i := 0
		for i < len(s) && s[i] != sep {
			i++
		}
		if i == len(s) {
			break
		}
		out, s = append(out, s[:i]), s[i+1:]
	}
	return append(out, s)
}

func writeRecord(fd int, s string) {
	for {
		_, err := early.Write(fd, []byte(s))
		if err != early.EINTR {
			return
		}
	}
}

// WithoutVar returns env without the entries that set name, keeping the order of the rest.
func WithoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if len(kv) <= len(name) || kv[len(name)] != '=' || kv[:len(name)] != name {
			out = append(out, kv)
		}
	}
	return out
}

// LooksBinary is bash's test before running a file as a script: a NUL byte in the first line
// (within the first 80 bytes) means a binary for another machine, not a script.
func LooksBinary(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	var buf [80]byte
	n, _ := f.Read(buf[:])
	for _, c := range buf[:n] {
		if c == '\n' {
			return false
		}
		if c == 0 {
			return true
		}
	}
	return false
}

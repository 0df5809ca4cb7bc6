package launch

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/unix"
)

// shimEnv marks a process as the launch shim. Its value is "1:GOFD:ERRFD:PATH": the version,
// the fd of the pipe the "go" byte arrives on, the fd of the close-on-exec pipe that carries
// records back to the parent, and the resolved path of the workload. The shim's argv is the
// workload's argv and its environment the workload's plus this variable.
const shimEnv = "PMC_LAUNCH_SHIM"

// StatusShimAborted is the exit status of a shim whose parent went away (or called Kill)
// before Exec: the workload never ran.
const StatusShimAborted = 125

// The shim runs before main: pmc's own flags, config and output are never touched. The main
// goroutine is on the main thread during init; LockOSThread keeps it there, so the exec below
// happens on the thread the parent attached its counters to (enable_on_exec fires for the
// exec'ing thread; exec from any other thread would leave every counter at 0).
func init() {
	spec, ok := unix.Getenv(shimEnv)
	if !ok {
		return
	}
	runtime.LockOSThread()
	os.Exit(shim(spec))
}

// shimFDs are the descriptors a shim gets from its parent, named in its spec.
type shimFDs struct {
	goFD, errFD, readyFD int
	path                 string
}

func (f shimFDs) String() string {
	return fmt.Sprintf("2:%d:%d:%d:%s", f.goFD, f.errFD, f.readyFD, f.path)
}

// parseSpec reads "2:GOFD:ERRFD:READYFD:PATH": three distinct fds above stdio, then the path
// (which may contain colons).
func parseSpec(spec string) (shimFDs, error) {
	f := strings.SplitN(spec, ":", 5)
	if len(f) != 5 || f[0] != "2" || f[4] == "" {
		return shimFDs{}, errors.New("want 2:GOFD:ERRFD:READYFD:PATH")
	}
	var fds [3]int
	for i, name := range []string{"GOFD", "ERRFD", "READYFD"} {
		n, err := strconv.Atoi(f[i+1])
		if err != nil || n < 3 || strconv.Itoa(n) != f[i+1] {
			return shimFDs{}, errors.New("bad " + name)
		}
		for _, prev := range fds[:i] {
			if prev == n {
				return shimFDs{}, errors.New("repeated fd " + f[i+1])
			}
		}
		fds[i] = n
	}
	return shimFDs{goFD: fds[0], errFD: fds[1], readyFD: fds[2], path: f[4]}, nil
}

// shim waits for the go byte, then execs the workload; it returns only if that failed.
func shim(spec string) int {
	fds, err := parseSpec(spec)
	goFD, errFD, path := fds.goFD, fds.errFD, fds.path
	if err != nil {
		fmt.Fprintf(os.Stderr, "pmc: %s is for pmc's own use (%v); unset it\n", shimEnv, err)
		return StatusShimAborted
	}
	// The parent's ends may have been non-blocking (O_NONBLOCK is shared by the file
	// description), and the workload must not inherit either pipe.
	for _, fd := range []int{goFD, errFD} {
		if setBlocking(fd, true) != nil || setCloseOnExec(fd) != nil {
			return StatusShimAborted
		}
	}
	// Tell the parent the runtime is up (every start-up thread exists) and it may attach the
	// counters now: a thread created after that would inherit them, never exec, and make
	// the inherited counters' enabled times disagree under multiplexing. The read below is
	// a raw syscall so that the runtime does not hand the blocked thread's P to a new one.
	var b [1]byte
	writeRecord(fds.readyFD, "R")
	unix.Close(fds.readyFD)
	n, err := unix.RawRead(goFD, b[:])
	for err == unix.EINTR {
		n, err = unix.RawRead(goFD, b[:])
	}
	if n != 1 {
		return StatusShimAborted // EOF: the parent exited or gave up before Exec
	}
	unix.Close(goFD)

	env := withoutVar(initialEnv(), shimEnv)
	// The shim's own CPU time (Go start-up) is in the rusage the parent gets from wait:
	// leave a record of it so the parent can take it out. Nothing reads this pipe before the
	// child exits, so the write wakes no one.
	if u, s, err := selfCPUTime(); err == nil {
		writeRecord(errFD, fmt.Sprintf("r %d %d\n", u.Nanoseconds(), s.Nanoseconds()))
	}
	// And the moment of the exec, so the workload's wall time starts there rather than when
	// pmc released a shim that may still have been starting up.
	writeRecord(errFD, fmt.Sprintf("t %d\n", monotonic().Nanoseconds()))
	// unix.Exec restores the RLIMIT_NOFILE soft limit that Go raised at the shim's
	// start-up. The shim started with the parent's original limit (os.StartProcess and
	// unix.ForkExec restore it in every child), so the workload gets the limit pmc had.
	err = unix.Exec(path, os.Args, env)
	if err == unix.ENOEXEC && !looksBinary(path) {
		// A text file without #!: run it with /bin/sh, as execvp(3) and shells do.
		argv := append([]string{"/bin/sh", path}, os.Args[1:]...)
		if err2 := unix.Exec("/bin/sh", argv, env); err2 != unix.ENOENT {
			err = err2
		}
	}
	errno, ok := err.(unix.Errno)
	if !ok {
		errno = unix.EINVAL
	}
	writeRecord(errFD, fmt.Sprintf("e %d\n", int(errno)))
	return (&ExecError{Err: errno}).ExitCode()
}

// initialEnv is the environment exactly as the shim received it. Go's unix.Environ drops
// duplicate names, and a workload must get duplicates too (a shell passes them on).
func initialEnv() []string {
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return unix.Environ()
	}
	env := strings.Split(string(b), "\x00")
	if len(env) > 0 && env[len(env)-1] == "" {
		env = env[:len(env)-1]
	}
	return env
}

func writeRecord(fd int, s string) {
	for {
		_, err := unix.Write(fd, []byte(s))
		if err != unix.EINTR {
			return
		}
	}
}

// withoutVar returns env without the entries that set name, keeping the order of the rest.
func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// looksBinary is bash's test before running a file as a script: a NUL byte in the first line
// (within the first 80 bytes) means a binary for another machine, not a script.
func looksBinary(path string) bool {
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

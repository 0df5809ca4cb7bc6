package launch

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/pmc-tools/pmc/internal/perfevent"
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
	spec, ok := syscall.Getenv(shimEnv)
	if !ok {
		return
	}
	runtime.LockOSThread()
	os.Exit(shim(spec))
}

func parseSpec(spec string) (goFD, errFD int, path string, err error) {
	f := strings.SplitN(spec, ":", 4)
	if len(f) != 4 || f[0] != "1" || f[3] == "" {
		return 0, 0, "", errors.New("want 1:GOFD:ERRFD:PATH")
	}
	if goFD, err = strconv.Atoi(f[1]); err != nil || goFD < 3 || strconv.Itoa(goFD) != f[1] {
		return 0, 0, "", errors.New("bad GOFD")
	}
	if errFD, err = strconv.Atoi(f[2]); err != nil || errFD < 3 || errFD == goFD || strconv.Itoa(errFD) != f[2] {
		return 0, 0, "", errors.New("bad ERRFD")
	}
	return goFD, errFD, f[3], nil
}

// shim waits for the go byte, then execs the workload; it returns only if that failed.
func shim(spec string) int {
	goFD, errFD, path, err := parseSpec(spec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pmc: %s is for pmc's own use (%v); unset it\n", shimEnv, err)
		return StatusShimAborted
	}
	// The parent's ends may have been non-blocking (O_NONBLOCK is shared by the file
	// description), and the workload must not inherit either pipe.
	for _, fd := range []int{goFD, errFD} {
		if perfevent.SetBlocking(fd, true) != nil || perfevent.SetCloseOnExec(fd) != nil {
			return StatusShimAborted
		}
	}
	var b [1]byte
	n, err := syscall.Read(goFD, b[:])
	for err == syscall.EINTR {
		n, err = syscall.Read(goFD, b[:])
	}
	if n != 1 {
		return StatusShimAborted // EOF: the parent exited or gave up before Exec
	}
	syscall.Close(goFD)

	env := withoutVar(initialEnv(), shimEnv)
	// The shim's own CPU time (Go start-up) is in the rusage the parent gets from wait:
	// leave a record of it so the parent can take it out. Nothing reads this pipe before the
	// child exits, so the write wakes no one.
	if u, s, err := perfevent.SelfCPUTime(); err == nil {
		writeRecord(errFD, fmt.Sprintf("r %d %d\n", u.Nanoseconds(), s.Nanoseconds()))
	}
	// And the moment of the exec, so the workload's wall time starts there rather than when
	// pmc released a shim that may still have been starting up.
	writeRecord(errFD, fmt.Sprintf("t %d\n", perfevent.Monotonic().Nanoseconds()))
	// syscall.Exec restores the RLIMIT_NOFILE soft limit that Go raised at the shim's
	// start-up. The shim started with the parent's original limit (os.StartProcess and
	// syscall.ForkExec restore it in every child), so the workload gets the limit pmc had.
	err = syscall.Exec(path, os.Args, env)
	if err == syscall.ENOEXEC && !looksBinary(path) {
		// A text file without #!: run it with /bin/sh, as execvp(3) and shells do.
		argv := append([]string{"/bin/sh", path}, os.Args[1:]...)
		if err2 := syscall.Exec("/bin/sh", argv, env); err2 != syscall.ENOENT {
			err = err2
		}
	}
	errno, ok := err.(syscall.Errno)
	if !ok {
		errno = syscall.EINVAL
	}
	writeRecord(errFD, fmt.Sprintf("e %d\n", int(errno)))
	return (&ExecError{Err: errno}).ExitCode()
}

// initialEnv is the environment exactly as the shim received it. Go's syscall.Environ drops
// duplicate names, and a workload must get duplicates too (a shell passes them on).
func initialEnv() []string {
	b, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return syscall.Environ()
	}
	env := strings.Split(string(b), "\x00")
	if len(env) > 0 && env[len(env)-1] == "" {
		env = env[:len(env)-1]
	}
	return env
}

func writeRecord(fd int, s string) {
	for {
		_, err := syscall.Write(fd, []byte(s))
		if err != syscall.EINTR {
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

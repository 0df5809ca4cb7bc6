package perfevent

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Process syscalls for launching and waiting on a workload (package launch). They are small
// wrappers: each returns the raw errno (a syscall.Errno) wrapped with the call's name.

// ErrNoPidfd: the kernel has no pidfd_open(2) (Linux < 5.3) or no waitid(P_PIDFD) (< 5.4).
var ErrNoPidfd = errors.New("pidfd not supported by this kernel")

// Pipe returns a pipe whose two ends are close-on-exec and in blocking mode.
func Pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, fmt.Errorf("pipe2: %w", err)
	}
	return p[0], p[1], nil
}

// SetBlocking clears (blocking true) or sets O_NONBLOCK on fd. O_NONBLOCK belongs to the
// open file description, so it is shared with every process that inherited the fd.
func SetBlocking(fd int, blocking bool) error {
	if err := unix.SetNonblock(fd, !blocking); err != nil {
		return fmt.Errorf("fcntl(%d, F_SETFL): %w", fd, err)
	}
	return nil
}

// SetCloseOnExec sets FD_CLOEXEC on fd, so that a successful execve(2) closes it.
func SetCloseOnExec(fd int) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fmt.Errorf("fcntl(%d, F_SETFD): %w", fd, err)
	}
	return nil
}

// PidfdOpen returns a close-on-exec pidfd for pid, which must be a child not yet waited for
// (then the pid cannot have been reused). ErrNoPidfd when the kernel lacks pidfd_open.
func PidfdOpen(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ENOSYS {
		return -1, ErrNoPidfd
	}
	if err != nil {
		return -1, fmt.Errorf("pidfd_open(%d): %w", pid, err)
	}
	return fd, nil
}

// PidfdSignal sends sig to the process behind pidfd (pidfd_send_signal(2)). Sending to a
// process that has exited but was not reaped yet succeeds and does nothing.
func PidfdSignal(pidfd int, sig syscall.Signal) error {
	if err := unix.PidfdSendSignal(pidfd, sig, nil, 0); err != nil {
		return fmt.Errorf("pidfd_send_signal(%v): %w", sig, err)
	}
	return nil
}

// ExitInfo is how a child ended, as waitid(2) reports it, with its resource usage (the child
// and the descendants it waited for).
type ExitInfo struct {
	Pid        int
	Exited     bool // it called exit; Code is the status
	Code       int
	Signal     syscall.Signal // killed by this signal when !Exited
	CoreDumped bool
	User, Sys  time.Duration
	MaxRSSKB   int64
	VolCtxSw   int64 // voluntary context switches
	InvolCtxSw int64
}

// si_code values of SIGCHLD (include/uapi/asm-generic/siginfo.h).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

// siginfo layout: si_signo, si_errno, si_code (3 x int32), then a union aligned to a pointer
// whose SIGCHLD member starts with si_pid, si_uid, si_status (3 x int32).
const sigchldOffset = (12 + unsafe.Sizeof(uintptr(0)) - 1) &^ (unsafe.Sizeof(uintptr(0)) - 1)

// WaitPidfd reaps the child behind pidfd with waitid(P_PIDFD, WEXITED). With block false it
// does not wait (WNOHANG) and reports done=false while the child runs.
func WaitPidfd(pidfd int, block bool) (info ExitInfo, done bool, err error) {
	var si unix.Siginfo
	var ru unix.Rusage
	opts := unix.WEXITED
	if !block {
		opts |= unix.WNOHANG
	}
	for {
		err = unix.Waitid(unix.P_PIDFD, pidfd, &si, opts, &ru)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.EINVAL {
		return info, false, fmt.Errorf("waitid(P_PIDFD): %w", ErrNoPidfd)
	}
	if err != nil {
		return info, false, fmt.Errorf("waitid(P_PIDFD): %w", err)
	}
	raw := (*[128]byte)(unsafe.Pointer(&si))
	field := func(i uintptr) int32 {
		return *(*int32)(unsafe.Pointer(&raw[sigchldOffset+4*i]))
	}
	info.Pid = int(field(0))
	if info.Pid == 0 { // WNOHANG and still running
		return info, false, nil
	}
	status := int(field(2))
	switch si.Code {
	case cldExited:
		info.Exited, info.Code = true, status
	case cldKilled, cldDumped:
		info.Signal, info.CoreDumped = syscall.Signal(status), si.Code == cldDumped
	default:
		return info, false, fmt.Errorf("waitid(P_PIDFD): unexpected si_code %d", si.Code)
	}
	fillRusage(&info, &ru)
	return info, true, nil
}

// Wait4 reaps pid with a blocking wait4(2): the fallback when the kernel has no pidfd.
func Wait4(pid int) (ExitInfo, error) {
	var ws unix.WaitStatus
	var ru unix.Rusage
	var err error
	for {
		_, err = unix.Wait4(pid, &ws, 0, &ru)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return ExitInfo{}, fmt.Errorf("wait4(%d): %w", pid, err)
	}
	info := ExitInfo{Pid: pid}
	if ws.Exited() {
		info.Exited, info.Code = true, ws.ExitStatus()
	} else {
		info.Signal, info.CoreDumped = syscall.Signal(ws.Signal()), ws.CoreDump()
	}
	fillRusage(&info, &ru)
	return info, nil
}

func fillRusage(info *ExitInfo, ru *unix.Rusage) {
	info.User = time.Duration(ru.Utime.Nano())
	info.Sys = time.Duration(ru.Stime.Nano())
	// int64 on 64-bit ABIs, int32 on 32-bit ARM: convert for both.
	info.MaxRSSKB = int64(ru.Maxrss)
	info.VolCtxSw, info.InvolCtxSw = int64(ru.Nvcsw), int64(ru.Nivcsw)
}

// SelfCPUTime returns the user and system CPU time of the calling process so far
// (getrusage(RUSAGE_SELF), all threads).
func SelfCPUTime() (user, sys time.Duration, err error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}

// Executable reports whether path may be executed by this process (faccessat(2) with X_OK
// and AT_EACCESS, so root needs at least one execute bit, as execve does).
func Executable(path string) error {
	if err := unix.Faccessat(unix.AT_FDCWD, path, unix.X_OK, unix.AT_EACCESS); err != nil {
		return err // a bare errno: callers compare it with EACCES, ENOENT...
	}
	return nil
}

// ForegroundOfTTY reports whether the calling process's group is the foreground process group
// of its controlling terminal: then characters such as ^C and ^\ typed at that terminal signal
// the whole group. false, nil when there is no controlling terminal.
func ForegroundOfTTY() (bool, error) {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return false, nil // ENXIO: no controlling terminal
	}
	defer unix.Close(fd)
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil {
		return false, fmt.Errorf("ioctl(TIOCGPGRP): %w", err)
	}
	return pgrp == unix.Getpgrp(), nil
}

// OpenPTY opens a new pseudo-terminal pair (tests use the slave as a controlling terminal
// and write ^C to the master).
func OpenPTY() (master, slave *os.File, err error) {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		unix.Close(m)
		return nil, nil, fmt.Errorf("ioctl(TIOCSPTLCK): %w", err)
	}
	n, err := unix.IoctlGetUint32(m, unix.TIOCGPTN)
	if err != nil {
		unix.Close(m)
		return nil, nil, fmt.Errorf("ioctl(TIOCGPTN): %w", err)
	}
	name := fmt.Sprintf("/dev/pts/%d", n)
	s, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(m)
		return nil, nil, fmt.Errorf("open %s: %w", name, err)
	}
	return os.NewFile(uintptr(m), "/dev/ptmx"), os.NewFile(uintptr(s), name), nil
}

// Monotonic reads CLOCK_MONOTONIC: the same clock in every process, so a time taken in the
// launch shim just before exec can be compared with one taken in pmc at the exit.
func Monotonic() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

package launch

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// The process system calls of launching and waiting on a workload, with their meaning (the
// raw calls are in internal/unix). Each error wraps the errno with the call's name.

// errNoPidfd: the kernel has no pidfd_open(2) (Linux < 5.3) or no waitid(P_PIDFD) (< 5.4).
var errNoPidfd = errors.New("pidfd not supported by this kernel")

// pipe returns a pipe whose two ends are close-on-exec and in blocking mode.
func pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, fmt.Errorf("pipe2: %w", err)
	}
	return p[0], p[1], nil
}

// readFull reads len(b) bytes from the blocking fd, through EINTR, and returns how many it
// got before EOF or an error (a shim that died before it wrote).
func readFull(fd int, b []byte) int {
	n := 0
	for n < len(b) {
		m, err := unix.Read(fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return n
}

// setBlocking clears (blocking true) or sets O_NONBLOCK on fd. O_NONBLOCK belongs to the
// open file description, so it is shared with every process that inherited the fd.
func setBlocking(fd int, blocking bool) error {
	if err := unix.SetNonblock(fd, !blocking); err != nil {
		return fmt.Errorf("fcntl(%d, F_SETFL): %w", fd, err)
	}
	return nil
}

// pidfdOpen returns a close-on-exec pidfd for pid. For a child not yet waited for the pid
// cannot have been reused. errNoPidfd when the kernel lacks pidfd_open.
func pidfdOpen(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ENOSYS {
		return -1, errNoPidfd
	}
	if err != nil {
		return -1, fmt.Errorf("pidfd_open(%d): %w", pid, err)
	}
	return fd, nil
}

// pidfdSignal sends sig to the process behind pidfd (pidfd_send_signal(2)). Sending to a
// process that has exited but was not reaped yet succeeds and does nothing.
func pidfdSignal(pidfd int, sig unix.Signal) error {
	if err := unix.PidfdSendSignal(pidfd, sig); err != nil {
		return fmt.Errorf("pidfd_send_signal(%v): %w", sig, err)
	}
	return nil
}

// exitInfo is how a child ended, as waitid(2) reports it, with its resource usage (the child
// and the descendants it waited for).
type exitInfo struct {
	Pid        int
	Exited     bool // it called exit; Code is the status
	Code       int
	Signal     unix.Signal // killed by this signal when !Exited
	CoreDumped bool
	User, Sys  time.Duration
	MaxRSSKB   int64
	VolCtxSw   int64 // voluntary context switches
	InvolCtxSw int64
}

// waitPidfd reaps the child behind pidfd with waitid(P_PIDFD, WEXITED). With block false it
// does not wait (WNOHANG) and reports done=false while the child runs.
func waitPidfd(pidfd int, block bool) (info exitInfo, done bool, err error) {
	var ru unix.Rusage
	opts := unix.WEXITED
	if !block {
		opts |= unix.WNOHANG
	}
	var ce unix.ChildExit
	for {
		ce, err = unix.WaitidPidfd(pidfd, opts, &ru)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.EINVAL {
		return info, false, fmt.Errorf("waitid(P_PIDFD): %w", errNoPidfd)
	}
	if err != nil {
		return info, false, fmt.Errorf("waitid(P_PIDFD): %w", err)
	}
	info.Pid = ce.Pid
	if info.Pid == 0 { // WNOHANG and still running
		return info, false, nil
	}
	switch ce.Code {
	case unix.CLD_EXITED:
		info.Exited, info.Code = true, ce.Status
	case unix.CLD_KILLED, unix.CLD_DUMPED:
		info.Signal, info.CoreDumped = unix.Signal(ce.Status), ce.Code == unix.CLD_DUMPED
	default:
		return info, false, fmt.Errorf("waitid(P_PIDFD): unexpected si_code %d", ce.Code)
	}
	fillRusage(&info, &ru)
	return info, true, nil
}

// wait4 reaps pid with a blocking wait4(2): the fallback when the kernel has no pidfd.
func wait4(pid int) (exitInfo, error) {
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
		return exitInfo{}, fmt.Errorf("wait4(%d): %w", pid, err)
	}
	info := exitInfo{Pid: pid}
	if ws.Exited() {
		info.Exited, info.Code = true, ws.ExitStatus()
	} else {
		info.Signal, info.CoreDumped = unix.Signal(ws.Signal()), ws.CoreDump()
	}
	fillRusage(&info, &ru)
	return info, nil
}

func fillRusage(info *exitInfo, ru *unix.Rusage) {
	info.User = time.Duration(ru.Utime.Nano())
	info.Sys = time.Duration(ru.Stime.Nano())
	// int64 on 64-bit ABIs, int32 on 32-bit ARM: convert for both.
	info.MaxRSSKB = int64(ru.Maxrss)
	info.VolCtxSw, info.InvolCtxSw = int64(ru.Nvcsw), int64(ru.Nivcsw)
}

// executable reports whether path may be executed by this process (faccessat(2) with X_OK
// and AT_EACCESS, so root needs at least one execute bit, as execve does). The error is a
// bare errno: callers compare it with EACCES, ENOENT...
func executable(path string) error {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.X_OK, unix.AT_EACCESS)
}

// foregroundOfTTY reports whether the calling process's group is the foreground process group
// of its controlling terminal: then characters such as ^C and ^\ typed at that terminal signal
// the whole group. false, nil when there is no controlling terminal.
func foregroundOfTTY() (bool, error) {
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

// openPTY opens a new pseudo-terminal pair (tests use the slave as a controlling terminal
// and write ^C to the master).
func openPTY() (master, slave *os.File, err error) {
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

// monotonic reads CLOCK_MONOTONIC: the same clock in every process, so a time taken in the
// launch shim just before exec can be compared with one taken in pmc at the exit.
func monotonic() time.Duration { return time.Duration(unix.Monotonic()) }

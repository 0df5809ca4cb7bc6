package unix

import (
	"io/fs"
	"syscall"
	"unsafe"

	linux "golang.org/x/sys/unix"
)

// File descriptors.

func Close(fd int) error                         { return linux.Close(fd) }
func Read(fd int, p []byte) (int, error)         { return linux.Read(fd, p) }
func Write(fd int, p []byte) (int, error)        { return linux.Write(fd, p) }
func Pipe2(p []int, flags int) error             { return linux.Pipe2(p, flags) }
func SetNonblock(fd int, nonblocking bool) error { return linux.SetNonblock(fd, nonblocking) }
func FcntlInt(fd uintptr, cmd, arg int) (int, error) {
	return linux.FcntlInt(fd, cmd, arg)
}
func MemfdCreate(name string, flags int) (int, error)      { return linux.MemfdCreate(name, flags) }
func Open(path string, mode int, perm uint32) (int, error) { return linux.Open(path, mode, perm) }
func IoctlGetInt(fd int, req uint) (int, error)            { return linux.IoctlGetInt(fd, req) }
func IoctlGetUint32(fd int, req uint) (uint32, error)      { return linux.IoctlGetUint32(fd, req) }
func IoctlSetPointerInt(fd int, req uint, value int) error {
	return linux.IoctlSetPointerInt(fd, req, value)
}

// Processes.

func ForkExec(argv0 string, argv []string, attr *ProcAttr) (int, error) {
	return syscall.ForkExec(argv0, argv, attr)
}
func Kill(pid int, sig Signal) error            { return syscall.Kill(pid, sig) }
func Getpgrp() int                              { return linux.Getpgrp() }
func PidfdOpen(pid int, flags int) (int, error) { return linux.PidfdOpen(pid, flags) }
func PidfdSendSignal(pidfd int, sig Signal) error {
	return linux.PidfdSendSignal(pidfd, sig, nil, 0)
}
func Wait4(pid int, ws *WaitStatus, options int, ru *Rusage) (int, error) {
	return linux.Wait4(pid, ws, options, ru)
}
func Getrlimit(resource int, r *Rlimit) error { return syscall.Getrlimit(resource, r) }
func Setrlimit(resource int, r *Rlimit) error { return syscall.Setrlimit(resource, r) }
func Faccessat(dirfd int, path string, mode, flags int) error {
	return linux.Faccessat(dirfd, path, uint32(mode), flags)
}
func Umask(mask int) int                    { return syscall.Umask(mask) }
func Mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

// Monotonic reads CLOCK_MONOTONIC in nanoseconds (0 if the clock cannot be read).
func Monotonic() int64 {
	var ts linux.Timespec
	if err := linux.ClockGettime(linux.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// ChildExit is what waitid(2) reports of a child: siginfo's si_pid, si_code (CLD_EXITED,
// CLD_KILLED, CLD_DUMPED...) and si_status (the exit code or the signal).
type ChildExit struct {
	Pid    int
	Code   int
	Status int
}

// si_code values of SIGCHLD (include/uapi/asm-generic/siginfo.h).
const (
	CLD_EXITED = 1
	CLD_KILLED = 2
	CLD_DUMPED = 3
)

// sigchldOffset: siginfo holds si_signo, si_errno, si_code (3 x int32), then a union aligned
// to a pointer whose SIGCHLD member starts with si_pid, si_uid, si_status (3 x int32).
const sigchldOffset = (12 + unsafe.Sizeof(uintptr(0)) - 1) &^ (unsafe.Sizeof(uintptr(0)) - 1)

// WaitidPidfd is waitid(P_PIDFD, pidfd, &info, options, &ru). A WNOHANG call that finds the
// child still running returns a zero Pid.
func WaitidPidfd(pidfd, options int, ru *Rusage) (ChildExit, error) {
	var si linux.Siginfo
	if err := linux.Waitid(linux.P_PIDFD, pidfd, &si, options, ru); err != nil {
		return ChildExit{}, err
	}
	raw := (*[unsafe.Sizeof(si)]byte)(unsafe.Pointer(&si))
	field := func(i uintptr) int {
		return int(*(*int32)(unsafe.Pointer(&raw[sigchldOffset+4*i])))
	}
	return ChildExit{Pid: field(0), Code: int(si.Code), Status: field(2)}, nil
}

// Readable reports whether fd polls readable now (poll(2) with POLLIN and no timeout): a
// pidfd is readable once its process has exited.
func Readable(fd int) (bool, error) {
	pfd := []linux.PollFd{{Fd: int32(fd), Events: linux.POLLIN}}
	for {
		n, err := linux.Poll(pfd, 0)
		if err == linux.EINTR {
			continue
		}
		return n > 0 && pfd[0].Revents&(linux.POLLIN|linux.POLLHUP|linux.POLLERR|linux.POLLNVAL) != 0, err
	}
}

// Files.

// FileOwner reads the owner and the hard-link count of a file from its fs.FileInfo.
func FileOwner(fi fs.FileInfo) (uid, gid int, nlink uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return int(st.Uid), int(st.Gid), uint64(st.Nlink), true
}

// IsTerminal reports whether fd is a terminal (TCGETS succeeds on it).
func IsTerminal(fd int) bool {
	_, err := linux.IoctlGetTermios(fd, linux.TCGETS)
	return err == nil
}

// Cbreak puts terminal fd in cbreak mode (each key read as typed, not echoed; Ctrl-C still
// a signal) and returns the function that restores its previous mode.
func Cbreak(fd int) (restore func(), err error) {
	old, err := linux.IoctlGetTermios(fd, linux.TCGETS)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Lflag &^= linux.ICANON | linux.ECHO
	t.Cc[linux.VMIN], t.Cc[linux.VTIME] = 1, 0
	if err := linux.IoctlSetTermios(fd, linux.TCSETS, &t); err != nil {
		return nil, err
	}
	return func() { linux.IoctlSetTermios(fd, linux.TCSETS, old) }, nil
}

// WindowSize returns the rows and columns of terminal fd.
func WindowSize(fd int) (rows, cols int, err error) {
	ws, err := linux.IoctlGetWinsize(fd, linux.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return int(ws.Row), int(ws.Col), nil
}

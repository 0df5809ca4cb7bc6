package unix

import (
	"syscall"

	linux "golang.org/x/sys/unix"
)

// Types of the system call interface, shared with the standard library where it has them
// (so that an Errno from os or os/exec compares equal to these constants).
type (
	Errno       = syscall.Errno
	Signal      = syscall.Signal
	ProcAttr    = syscall.ProcAttr
	SysProcAttr = syscall.SysProcAttr
	Rlimit      = syscall.Rlimit
	Rusage      = linux.Rusage
	WaitStatus  = linux.WaitStatus
)

// Error numbers pmc tells apart.
const (
	E2BIG      = syscall.E2BIG
	EACCES     = syscall.EACCES
	EAGAIN     = syscall.EAGAIN
	EBADF      = syscall.EBADF
	EBUSY      = syscall.EBUSY
	EFAULT     = syscall.EFAULT
	EINTR      = syscall.EINTR
	EINVAL     = syscall.EINVAL
	EISDIR     = syscall.EISDIR
	EMFILE     = syscall.EMFILE
	ENODEV     = syscall.ENODEV
	ENOENT     = syscall.ENOENT
	ENOEXEC    = syscall.ENOEXEC
	ENOSPC     = syscall.ENOSPC
	ENOSYS     = syscall.ENOSYS
	ENOTDIR    = syscall.ENOTDIR
	ENXIO      = syscall.ENXIO
	EOPNOTSUPP = syscall.EOPNOTSUPP
	EPERM      = syscall.EPERM
	EPIPE      = syscall.EPIPE
	ESRCH      = syscall.ESRCH
)

// Signals.
const (
	SIGABRT = syscall.SIGABRT
	SIGALRM = syscall.SIGALRM
	SIGBUS  = syscall.SIGBUS
	SIGCHLD = syscall.SIGCHLD
	SIGCONT = syscall.SIGCONT
	SIGFPE  = syscall.SIGFPE
	SIGHUP  = syscall.SIGHUP
	SIGILL  = syscall.SIGILL
	SIGINT  = syscall.SIGINT
	SIGKILL = syscall.SIGKILL
	SIGPIPE = syscall.SIGPIPE
	SIGQUIT = syscall.SIGQUIT
	SIGSEGV = syscall.SIGSEGV
	SIGSTOP = syscall.SIGSTOP
	SIGTERM = syscall.SIGTERM
	SIGTRAP = syscall.SIGTRAP
	SIGUSR1 = syscall.SIGUSR1
	SIGUSR2 = syscall.SIGUSR2
)

// Flags and options of the calls below.
const (
	O_CLOEXEC     = linux.O_CLOEXEC
	O_DIRECTORY   = linux.O_DIRECTORY
	O_NOCTTY      = linux.O_NOCTTY
	O_NONBLOCK    = linux.O_NONBLOCK
	O_RDONLY      = linux.O_RDONLY
	O_RDWR        = linux.O_RDWR
	F_GETFD       = linux.F_GETFD
	F_SETFD       = linux.F_SETFD
	F_GETFL       = linux.F_GETFL
	FD_CLOEXEC    = linux.FD_CLOEXEC
	RLIMIT_NOFILE = syscall.RLIMIT_NOFILE
	RLIMIT_AS     = syscall.RLIMIT_AS
	RLIM_INFINITY = linux.RLIM_INFINITY
	RUSAGE_SELF   = linux.RUSAGE_SELF
	WEXITED       = linux.WEXITED
	WNOHANG       = linux.WNOHANG
	P_PIDFD       = linux.P_PIDFD
	X_OK          = linux.X_OK
	AT_FDCWD      = linux.AT_FDCWD
	AT_EACCESS    = linux.AT_EACCESS
	TIOCGPGRP     = linux.TIOCGPGRP
	TIOCGPTN      = linux.TIOCGPTN
	TIOCSPTLCK    = linux.TIOCSPTLCK

	MFD_CLOEXEC       = linux.MFD_CLOEXEC
	MFD_ALLOW_SEALING = linux.MFD_ALLOW_SEALING
	MFD_EXEC          = linux.MFD_EXEC
	F_ADD_SEALS       = linux.F_ADD_SEALS
	F_SEAL_SEAL       = linux.F_SEAL_SEAL
	F_SEAL_SHRINK     = linux.F_SEAL_SHRINK
	F_SEAL_GROW       = linux.F_SEAL_GROW
	F_SEAL_WRITE      = linux.F_SEAL_WRITE
)

// ErrnoName is the symbolic name of an errno ("EACCES"), "" when it has none.
func ErrnoName(e Errno) string { return linux.ErrnoName(e) }

// SignalName is the kernel's name of a signal ("SIGINT"), "" when it has none.
func SignalName(s Signal) string { return linux.SignalName(s) }

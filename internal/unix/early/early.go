// Package early holds the system calls of the launch shim (internal/launch/shim), which runs
// during package initialisation, before most of pmc's packages. It is part of pmc's kernel
// boundary (internal/unix) and imports syscall alone: golang.org/x/sys/unix initialises late
// in pmc's init order (its import path sorts after most others), and a package importing it
// could not run before the packages initialised ahead of it.
package early

import (
	"syscall"
	"unsafe"
)

// Errno is a system call's error number.
type Errno = syscall.Errno

// Error numbers the shim tells apart.
const (
	EINTR   = syscall.EINTR
	EINVAL  = syscall.EINVAL
	ENOENT  = syscall.ENOENT
	ENOEXEC = syscall.ENOEXEC
	ENOTDIR = syscall.ENOTDIR
)

func Getenv(key string) (string, bool)             { return syscall.Getenv(key) }
func Environ() []string                            { return syscall.Environ() }
func Write(fd int, p []byte) (int, error)          { return syscall.Write(fd, p) }
func Close(fd int) error                           { return syscall.Close(fd) }
func Exec(argv0 string, argv, envv []string) error { return syscall.Exec(argv0, argv, envv) }

// RawRead is read(2) without telling the Go scheduler (no entersyscall): the shim blocks in
// it without the runtime starting a thread to take over its P.
func RawRead(fd int, p []byte) (int, error) {
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(ptr), uintptr(len(p)))
	if errno != 0 {
		return int(n), errno
	}
	return int(n), nil
}

// SetBlocking clears O_NONBLOCK on fd.
func SetBlocking(fd int) error { return syscall.SetNonblock(fd, false) }

// SetCloseOnExec sets FD_CLOEXEC on fd (fcntl(2) F_SETFD).
func SetCloseOnExec(fd int) error {
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, syscall.FD_CLOEXEC)
	if errno != 0 {
		return errno
	}
	return nil
}

// Usage is the user and system CPU time of the calling process so far, in nanoseconds, and
// its peak resident set size in KiB (getrusage(2) RUSAGE_SELF; the peak includes what an
// exec inherited: the kernel keeps the high-water mark across exec).
func Usage() (user, sys, maxRSSKB int64, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, 0, err
	}
	// Maxrss is int64 on 64-bit ABIs, int32 on 32-bit ARM: convert for both.
	return ru.Utime.Nano(), ru.Stime.Nano(), int64(ru.Maxrss), nil
}

// Monotonic reads CLOCK_MONOTONIC in nanoseconds (0 if the clock cannot be read): the clock
// of internal/unix.Monotonic, so the two can be compared across processes.
func Monotonic() int64 {
	var ts syscall.Timespec
	const clockMonotonic = 1
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return ts.Nano()
}

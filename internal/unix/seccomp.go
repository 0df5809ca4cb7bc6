package unix

import (
	"unsafe"

	linux "golang.org/x/sys/unix"
)

// DenyPerfEventOpen installs a seccomp filter on every thread of this process (and what it
// starts) under which perf_event_open fails with errno, as a container's seccomp profile
// does. It cannot be undone: tests call it in a child process only.
func DenyPerfEventOpen(errno Errno) error {
	if err := linux.Prctl(linux.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	filter := []linux.SockFilter{
		{Code: linux.BPF_LD | linux.BPF_W | linux.BPF_ABS, K: 0}, // seccomp_data.nr
		{Code: linux.BPF_JMP | linux.BPF_JEQ | linux.BPF_K, Jt: 0, Jf: 1, K: linux.SYS_PERF_EVENT_OPEN},
		{Code: linux.BPF_RET | linux.BPF_K, K: linux.SECCOMP_RET_ERRNO | uint32(errno)&0xffff},
		{Code: linux.BPF_RET | linux.BPF_K, K: linux.SECCOMP_RET_ALLOW},
	}
	prog := linux.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, e := linux.Syscall(linux.SYS_SECCOMP, linux.SECCOMP_SET_MODE_FILTER, linux.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	if e != 0 {
		return e
	}
	return nil
}

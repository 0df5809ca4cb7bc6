package unix

import (
	"sync/atomic"
	"unsafe"

	linux "golang.org/x/sys/unix"
)

// Memory mapping of perf ring buffers.
const (
	PROT_READ  = linux.PROT_READ
	PROT_WRITE = linux.PROT_WRITE
	MAP_SHARED = linux.MAP_SHARED
)

func Mmap(fd int, offset int64, length, prot, flags int) ([]byte, error) {
	return linux.Mmap(fd, offset, length, prot, flags)
}
func Munmap(b []byte) error { return linux.Munmap(b) }

// LoadUint64 atomically reads the aligned u64 at b[off:] (a ring's data_head).
func LoadUint64(b []byte, off int) uint64 {
	_ = b[off+7]
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&b[off])))
}

// StoreUint64 atomically writes the aligned u64 at b[off:] (a ring's data_tail).
func StoreUint64(b []byte, off int, v uint64) {
	_ = b[off+7]
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&b[off])), v)
}

// epoll.
type EpollEvent = linux.EpollEvent

const (
	EPOLLIN       = linux.EPOLLIN
	EPOLLHUP      = linux.EPOLLHUP
	EPOLLERR      = linux.EPOLLERR
	EPOLL_CTL_ADD = linux.EPOLL_CTL_ADD
	EPOLL_CTL_DEL = linux.EPOLL_CTL_DEL
	EPOLL_CLOEXEC = linux.EPOLL_CLOEXEC
)

func EpollCreate1(flags int) (int, error) { return linux.EpollCreate1(flags) }
func EpollCtl(epfd, op, fd int, ev *EpollEvent) error {
	return linux.EpollCtl(epfd, op, fd, ev)
}
func EpollWait(epfd int, events []EpollEvent, msec int) (int, error) {
	return linux.EpollWait(epfd, events, msec)
}

// Uname fields as strings: the kernel release and the machine (uname -r, uname -m).
func Uname() (release, machine string, err error) {
	var u linux.Utsname
	if err := linux.Uname(&u); err != nil {
		return "", "", err
	}
	return linux.ByteSliceToString(u.Release[:]), linux.ByteSliceToString(u.Machine[:]), nil
}

package perfevent

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Poller waits with epoll for sampling counters whose rings have data, and for Wake.
//
// Wake is a state, not an event: once woken, the Wait in progress and every later Wait
// return at once. A loop that checks why it was woken after Wait returns therefore cannot
// miss a wake-up that came before it slept (the wake-up pipe is never drained), which is
// what made `pmc record` hang in epoll_wait(-1) after Ctrl-C or a target's exit.
type Poller struct {
	epfd   int
	wake   [2]int // a pipe: the read end is watched, written once by Wake, never read
	woken  atomic.Bool
	events []unix.EpollEvent
}

// NewPoller creates an epoll instance with a wake-up pipe.
func NewPoller() (*Poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	p := &Poller{epfd: epfd, wake: [2]int{-1, -1}}
	if err := unix.Pipe2(p.wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		p.Close()
		return nil, fmt.Errorf("pipe2: %w", err)
	}
	if err := p.Watch(p.wake[0]); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Watch adds fd (a sampling counter's, whose ring is mapped): Wait returns when its ring
// passes its wakeup mark. The Poller does not own fd.
func (p *Poller) Watch(fd int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	p.events = append(p.events, unix.EpollEvent{})
	return nil
}

// Wake makes the Wait in progress, if any, and every later Wait return at once with woken
// true. Safe from any goroutine, any number of times.
func (p *Poller) Wake() {
	if p.woken.CompareAndSwap(false, true) {
		unix.Write(p.wake[1], []byte{1})
	}
}

// Wait blocks until a ring has data, Wake has been called or timeout passes (<0: no
// timeout). It reports whether Wake has been called. Counters whose task is gone (EPOLLHUP)
// stop being watched, so a finished workload does not make Wait spin.
func (p *Poller) Wait(timeout time.Duration) (woken bool, err error) {
	if p.woken.Load() {
		return true, nil
	}
	var deadline time.Time
	if timeout >= 0 {
		deadline = time.Now().Add(timeout)
	}
	n, err := 0, unix.EINTR
	for errors.Is(err, unix.EINTR) { // a signal (the Go runtime sends many) is not a reason to return
		if p.woken.Load() {
			return true, nil
		}
		ms := -1
		if timeout >= 0 {
			ms = max(0, int(time.Until(deadline)/time.Millisecond))
		}
		n, err = unix.EpollWait(p.epfd, p.events, ms)
	}
	if err != nil {
		return false, fmt.Errorf("epoll_wait: %w", err)
	}
	for _, ev := range p.events[:n] {
		if fd := int(ev.Fd); fd != p.wake[0] && ev.Events&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, fd, nil)
		}
	}
	return p.woken.Load(), nil
}

// Close releases the epoll instance and the wake-up pipe.
func (p *Poller) Close() error {
	for _, fd := range []int{p.wake[0], p.wake[1], p.epfd} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	p.epfd, p.wake = -1, [2]int{-1, -1}
	return nil
}

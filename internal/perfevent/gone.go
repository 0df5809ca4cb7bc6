package perfevent

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Gone returns a channel closed when process pid has exited. It works for any process, not
// only children: the pidfd polls readable at the exit, and Go's poller parks on it. Without
// pidfd (kernels before 5.3) it checks every 100 ms whether the pid still exists.
func Gone(pid int) (<-chan struct{}, error) {
	done := make(chan struct{})
	fd, err := PidfdOpen(pid)
	switch {
	case errors.Is(err, ErrNoPidfd):
		go func() {
			defer close(done)
			for syscall.Kill(pid, 0) != syscall.ESRCH {
				time.Sleep(100 * time.Millisecond)
			}
		}()
		return done, nil
	case err != nil:
		return nil, err
	}
	if err := SetBlocking(fd, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "pidfd:"+strconv.Itoa(pid))
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	go func() {
		defer close(done)
		defer f.Close()
		first := true
		// Read calls the function, and while it returns false waits until the fd polls
		// readable: the first call says "not yet", the next one runs after the exit.
		rc.Read(func(uintptr) bool {
			if first {
				first = false
				return false
			}
			return true
		})
	}()
	return done, nil
}

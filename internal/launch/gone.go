package launch

import (
	"errors"
	"os"
	"strconv"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Gone returns a channel closed when process pid has exited. It works for any process, not
// only children: the pidfd polls readable at the exit, and Go's poller parks on it. Without
// pidfd (kernels before 5.3) it checks every 100 ms whether the pid still exists.
func Gone(pid int) (<-chan struct{}, error) {
	done := make(chan struct{})
	fd, err := pidfdOpen(pid)
	switch {
	case errors.Is(err, errNoPidfd):
		go func() {
			defer close(done)
			for unix.Kill(pid, 0) != unix.ESRCH {
				time.Sleep(100 * time.Millisecond)
			}
		}()
		return done, nil
	case err != nil:
		return nil, err
	}
	if err := setBlocking(fd, false); err != nil {
		unix.Close(fd)
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
		// Read calls the function, and while it returns false waits for the fd's next
		// readiness edge. The function asks whether the pidfd is readable now (the process
		// has exited): an exit before the wait began, whose edge Read's reset forgets, is
		// seen too (pmc record -p waited forever for a target that exited just then).
		rc.Read(func(fd uintptr) bool {
			exited, err := unix.Readable(int(fd))
			return exited || err != nil
		})
	}()
	return done, nil
}

package launch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/pmc-tools/pmc/internal/launch/shim"
	"github.com/pmc-tools/pmc/internal/launch/tiny"
	"github.com/pmc-tools/pmc/internal/unix"
)

// The tiny shim (package tiny) runs from a sealed memfd that each pmc process makes once.
// When it cannot be made or run (no memfd, no /proc, a policy against executable memfds,
// qemu's user mode without binfmt_misc, an architecture without a shim) pmc re-executes
// itself as the shim instead, which works everywhere pmc runs but costs a Go runtime's
// start per launch. PMC_LAUNCH=self asks for that from the start.
const launchEnv = "PMC_LAUNCH"

var tinyShim struct {
	once sync.Once
	path string // /proc/self/fd/N; "" when unusable
	err  error  // why not
	mu   sync.Mutex
}

// tinyPath returns the path to exec for the tiny shim, or an error saying why there is none.
func tinyPath() (string, error) {
	tinyShim.once.Do(func() {
		if v := os.Getenv(launchEnv); v == "self" {
			tinyShim.err = errors.New(launchEnv + "=self")
			return
		}
		tinyShim.path, tinyShim.err = makeTinyShim(tiny.Image())
	})
	tinyShim.mu.Lock()
	defer tinyShim.mu.Unlock()
	return tinyShim.path, tinyShim.err
}

// refuseTinyShim records that the kernel would not run the tiny shim: later launches
// re-execute pmc.
func refuseTinyShim(err error) {
	tinyShim.mu.Lock()
	tinyShim.path, tinyShim.err = "", err
	tinyShim.mu.Unlock()
}

// makeTinyShim writes image to a sealed, close-on-exec memfd and returns its /proc path.
// execve opens the path before it closes the close-on-exec fds, and the shim, a static
// executable, needs nothing else from the file.
func makeTinyShim(image []byte) (string, error) {
	if len(image) == 0 {
		return "", errors.New("no shim for this architecture")
	}
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate("pmc-launch", flags|unix.MFD_EXEC)
	if err == unix.EINVAL { // kernels before 6.3 know no MFD_EXEC: memfds are executable
		fd, err = unix.MemfdCreate("pmc-launch", flags)
	}
	if err != nil {
		return "", fmt.Errorf("memfd_create: %w", err)
	}
	for len(image) > 0 {
		n, err := unix.Write(fd, image)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return "", fmt.Errorf("writing the memfd: %w", err)
		}
		image = image[n:]
	}
	seals := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		unix.Close(fd)
		return "", fmt.Errorf("sealing the memfd: %w", err)
	}
	path := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := executable(path); err != nil {
		unix.Close(fd)
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return path, nil // the fd stays open for the life of pmc
}

// startTiny starts the tiny shim and returns the pid of the process that will exec the
// workload (the shim's clone, pmc's child too) and whether that process's peak RSS is its
// own. The shim itself is reaped here. The caller closes pidR.
func startTiny(shimPath string, argv []string, attr *unix.ProcAttr, pidR int) (pid int, ownRSS bool, err error) {
	shimPid, err := unix.ForkExec(shimPath, argv, attr)
	if err != nil {
		return 0, false, err
	}
	var b [4]byte
	if readFull(pidR, b[:]) < len(b) {
		// The shim died before it could say: reap it and report how it ended.
		info, werr := wait4(shimPid)
		if werr != nil {
			return 0, false, fmt.Errorf("the launch shim: %w", werr)
		}
		return 0, false, &tinyDiedError{describeExit(info)}
	}
	pid = int(int32(binary.NativeEndian.Uint32(b[:])))
	if pid == shimPid {
		return pid, false, nil // the shim could not clone: it is the workload's process
	}
	if _, err := wait4(shimPid); err != nil {
		return 0, false, fmt.Errorf("the launch shim: %w", err)
	}
	if pid <= 0 {
		return 0, false, fmt.Errorf("the launch shim reported pid %d", pid)
	}
	return pid, true, nil
}

// tinyDiedError: the tiny shim ended before it reported a pid; the kernel ran something
// else than the shim (an emulator that cannot open the memfd through binfmt_misc).
type tinyDiedError struct{ how string }

func (e *tinyDiedError) Error() string {
	return "the launch shim ended before it started the workload (" + e.how + ")"
}

func describeExit(info exitInfo) string {
	if info.Exited {
		return "exit status " + strconv.Itoa(info.Code)
	}
	return "killed by " + info.Signal.String()
}

// tinyArgv is the shim's argv: MODE, PATH, then the workload's (see package tiny). MODE is
// the shell that runs PATH if the kernel refuses it as an executable, or "-" for none.
func tinyArgv(path, dir string, args []string) []string {
	mode := "-"
	if !shim.LooksBinary(inDir(dir, path)) {
		mode = "/bin/sh"
	}
	return append([]string{mode, path}, args...)
}

// TinyShim reports whether launches go through the tiny shim: nil if they do, else why they
// re-execute pmc instead (and the workload's peak RSS is known only above pmc's own).
func TinyShim() error {
	_, err := tinyPath()
	return err
}

package perfevent

import (
	"errors"
	"fmt"

	"github.com/pmc-tools/pmc/internal/unix"
)

var (
	// ErrNotSupported: the kernel or the hardware has no such event here (ENOENT, EOPNOTSUPP,
	// ENODEV, ENXIO). On a machine without a hardware PMU every hardware event ends here.
	ErrNotSupported = errors.New("event not supported")
	// ErrPermission: perf_event_paranoid or missing CAP_PERFMON refused the event.
	ErrPermission = errors.New("permission denied")
	// ErrInvalid: the kernel rejected the attribute (EINVAL), e.g. a group larger than the
	// counters, a bad format value, or a flag this kernel does not know.
	ErrInvalid = errors.New("invalid event attributes")
	// ErrBusy: the counter is taken by another user (EBUSY), e.g. an exclusive or pinned event.
	ErrBusy = errors.New("counter busy")
	// ErrTooManyFiles: the fd limit was reached (EMFILE).
	ErrTooManyFiles = errors.New("too many open files")
	// ErrNoSyscall: there is no perf_event_open to call (ENOSYS): a kernel built without
	// CONFIG_PERF_EVENTS, a seccomp filter, or a user-mode emulator (qemu-arm) that does not
	// pass the call through. No event of any kind can be counted.
	ErrNoSyscall = errors.New("perf_event_open is not available")
)

// OpenError says which event failed to open and why, wrapping one of the sentinels above.
type OpenError struct {
	Event string
	PID   int
	CPU   int
	Errno unix.Errno
	Err   error // a sentinel
	// Cgroup: the event was opened for a cgroup (PID is its directory's fd).
	Cgroup bool
	// Paranoid is kernel.perf_event_paranoid as the caller read it from its machine model
	// ("" unknown: this package reads no /proc file): a permission refusal's hint names it.
	Paranoid string
}

// cgroupENOENT explains ENOENT for a cgroup event: on kernel 6.1 a new cgroup v2 has no
// perf_event controller until the root's controllers are recomputed, which systemd does at
// boot; without systemd nothing does (found in the QEMU guests).
const cgroupENOENT = "if the event opens system-wide without the cgroup, the kernel has not enabled perf_event for cgroups yet: " +
	"write the root's controllers once, e.g. echo +pids > /sys/fs/cgroup/cgroup.subtree_control (systemd does it at boot)"

func (e *OpenError) Error() string {
	msg := fmt.Sprintf("opening %q: %v", e.Event, e.Err)
	if name := unix.ErrnoName(e.Errno); name != "" {
		msg += " (" + name + ")" // the errno's name, not its text: that repeated the sentinel's
	}
	switch hint := Hint(e); {
	case e.Cgroup && e.Errno == unix.ENOENT:
		msg += ": " + cgroupENOENT
	case hint != "":
		msg += ": " + hint
	}
	return msg
}

func (e *OpenError) Unwrap() error { return e.Err }

func classify(errno unix.Errno) error {
	switch errno {
	case unix.ENOENT, unix.EOPNOTSUPP, unix.ENODEV, unix.ENXIO:
		return ErrNotSupported
	case unix.EACCES, unix.EPERM:
		return ErrPermission
	case unix.EBUSY:
		return ErrBusy
	case unix.EMFILE:
		return ErrTooManyFiles
	case unix.ENOSYS:
		return ErrNoSyscall
	default:
		return ErrInvalid
	}
}

// Hint names the fix for a sentinel error, in one line. A permission refusal names the value
// of kernel.perf_event_paranoid when err is an OpenError that carries it.
func Hint(err error) string {
	switch {
	case errors.Is(err, ErrPermission):
		why := "kernel.perf_event_paranoid forbids it"
		var oe *OpenError
		if errors.As(err, &oe) && oe.Paranoid != "" {
			why = "kernel.perf_event_paranoid is " + oe.Paranoid
		}
		return why + "; run as root, grant CAP_PERFMON, or " +
			"`sysctl -w kernel.perf_event_paranoid=1` (-1 for system-wide and raw events)"
	case errors.Is(err, ErrTooManyFiles):
		return "raise the open-file limit (`ulimit -n`) or count fewer events/CPUs"
	case errors.Is(err, ErrNoSyscall):
		return "no event can be counted here; `pmc doctor` says why (kernel configuration, seccomp, or an emulator)"
	case errors.Is(err, ErrBusy):
		return "another tool holds this counter (e.g. an NMI watchdog: `sysctl -w kernel.nmi_watchdog=0`)"
	}
	return ""
}

package perfevent

import (
	"errors"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/unix"
)

// TestCgroupENOENTHint: ENOENT for a cgroup event says what the QEMU guests showed (a kernel
// 6.1 cgroup gets no perf_event controller until the root's controllers are written), not
// only "not supported"; without a cgroup ENOENT keeps the usual hint.
func TestCgroupENOENTHint(t *testing.T) {
	cg := &OpenError{Event: "task-clock", Errno: unix.ENOENT, Err: classify(unix.ENOENT), Cgroup: true}
	if !strings.Contains(cg.Error(), "cgroup.subtree_control") || !errors.Is(cg, ErrNotSupported) {
		t.Errorf("cgroup ENOENT: %v", cg)
	}
	plain := &OpenError{Event: "cycles", Errno: unix.ENOENT, Err: classify(unix.ENOENT)}
	if strings.Contains(plain.Error(), "cgroup") {
		t.Errorf("ENOENT without a cgroup mentions cgroups: %v", plain)
	}
}

// TestPermissionHintNamesParanoid: a permission refusal names perf_event_paranoid's value
// when the caller's machine model gave it, and still says what to change when not (this
// package reads no /proc file).
func TestPermissionHintNamesParanoid(t *testing.T) {
	known := &OpenError{Event: "cycles", Errno: unix.EACCES, Err: classify(unix.EACCES), Paranoid: "3"}
	if msg := known.Error(); !strings.Contains(msg, "kernel.perf_event_paranoid is 3; run as root") {
		t.Errorf("with the value: %s", msg)
	}
	unknown := &OpenError{Event: "cycles", Errno: unix.EACCES, Err: classify(unix.EACCES)}
	if msg := unknown.Error(); !strings.Contains(msg, "kernel.perf_event_paranoid forbids it; run as root") {
		t.Errorf("without the value: %s", msg)
	}
}

// TestNoSyscall: ENOSYS (no perf_event_open: kernel configuration, seccomp, qemu-user) is
// its own error, not "invalid event attributes", and points to pmc doctor.
func TestNoSyscall(t *testing.T) {
	e := &OpenError{Event: "task-clock", Errno: unix.ENOSYS, Err: classify(unix.ENOSYS)}
	if !errors.Is(e, ErrNoSyscall) || !strings.Contains(e.Error(), "(ENOSYS): no event can be counted here; `pmc doctor` says why") {
		t.Errorf("ENOSYS: %v", e)
	}
}

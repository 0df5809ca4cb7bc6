package unix

import (
	"unsafe"

	linux "golang.org/x/sys/unix"
)

// PerfEventAttr is struct perf_event_attr in the kernel's layout.
type PerfEventAttr = linux.PerfEventAttr

// PerfEventAttrSize is the size of PerfEventAttr as this build passes it (attr.size).
const PerfEventAttrSize = uint32(unsafe.Sizeof(linux.PerfEventAttr{}))

// PerfEventOpen is perf_event_open(2).
func PerfEventOpen(attr *PerfEventAttr, pid, cpu, groupFd, flags int) (int, error) {
	return linux.PerfEventOpen(attr, pid, cpu, groupFd, flags)
}

// IoctlSetInt issues an ioctl with an int argument (PERF_EVENT_IOC_ENABLE and friends).
func IoctlSetInt(fd int, req uint, value int) error { return linux.IoctlSetInt(fd, req, value) }

// PerfEventID reads the kernel's id of a perf event fd (PERF_EVENT_IOC_ID).
func PerfEventID(fd int) (uint64, error) {
	var id uint64
	_, _, errno := linux.Syscall(linux.SYS_IOCTL, uintptr(fd), uintptr(linux.PERF_EVENT_IOC_ID),
		uintptr(unsafe.Pointer(&id)))
	if errno != 0 {
		return 0, errno
	}
	return id, nil
}

// OpenCgroupDir opens a cgroup v2 directory for perf_event_open's PERF_FLAG_PID_CGROUP: the
// fd goes where the pid would, and counting follows every task of that cgroup on each CPU.
func OpenCgroupDir(path string) (int, error) {
	return linux.Open(path, linux.O_RDONLY|linux.O_DIRECTORY|linux.O_CLOEXEC, 0)
}

package unix

import (
	"sync/atomic"
	"unsafe"

	linux "golang.org/x/sys/unix"
)

// User-space reads of a hardware counter (pmc mem's single-hop timer): the perf mmap page
// of a counter says whether user space may read it (cap_user_rdpmc) and which hardware
// counter holds it (index - 1); CycleTimedLoad then times one dependent load between two
// reads of that counter without a system call. CycleCounterArch names the instruction on
// this architecture, "" where pmc has none.

// Offsets in struct perf_event_mmap_page (include/uapi/linux/perf_event.h).
const (
	PerfPageIndex        = 12 // __u32 index: hardware counter + 1, 0 = not readable now
	PerfPageCapabilities = 40 // __u64: bit 2 cap_user_rdpmc
	PerfPagePMCWidth     = 48 // __u16 pmc_width
	PerfCapUserRdpmc     = 1 << 2
)

// LoadUint32 atomically reads the aligned u32 at b[off:] (a perf page's index).
func LoadUint32(b []byte, off int) uint32 {
	_ = b[off+3]
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&b[off])))
}

// LoadUint16 reads the u16 at b[off:] in the machine's byte order.
func LoadUint16(b []byte, off int) uint16 {
	_ = b[off+1]
	return *(*uint16)(unsafe.Pointer(&b[off]))
}

// PageSize is the base page size of the running kernel.
func PageSize() int { return linux.Getpagesize() }

// Anonymous memory for pmc mem's list, with transparent huge pages asked for or refused.
const (
	MADV_HUGEPAGE   = linux.MADV_HUGEPAGE
	MADV_NOHUGEPAGE = linux.MADV_NOHUGEPAGE
)

// MapWords maps n zeroed uint32 words of private anonymous memory and applies advice (0 for
// none, MADV_HUGEPAGE or MADV_NOHUGEPAGE) before the first touch. free unmaps it; the slice
// must not be used after.
func MapWords(n int, advice int) (words []uint32, addr uintptr, free func() error, err error) {
	b, err := linux.Mmap(-1, 0, n*4, linux.PROT_READ|linux.PROT_WRITE, linux.MAP_PRIVATE|linux.MAP_ANONYMOUS)
	if err != nil {
		return nil, 0, nil, err
	}
	if advice != 0 {
		if err := linux.Madvise(b, advice); err != nil {
			linux.Munmap(b)
			return nil, 0, nil, err
		}
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	return unsafe.Slice((*uint32)(p), n), uintptr(p), func() error { return linux.Munmap(b) }, nil
}

package perfevent

import (
	"errors"
	"fmt"
	"os"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Offsets in struct perf_event_mmap_page, the ring's first page.
const (
	offDataHead   = 1024
	offDataTail   = 1032
	offDataOffset = 1040
	offDataSize   = 1048
)

// Ring is the kernel's ring buffer of a sampling counter, mapped read-write (pmc moves the
// tail, so the kernel never overwrites records pmc has not read; when the ring is full it
// drops records and says so with a PERF_RECORD_LOST).
type Ring struct {
	c    *Counter
	mem  []byte
	data []byte
	tail uint64
	buf  []byte // a record that wraps around the end of the ring, made whole
}

// MapRing maps c's ring buffer with dataPages pages of records (a power of two).
func (c *Counter) MapRing(dataPages int) (*Ring, error) {
	if dataPages <= 0 || dataPages&(dataPages-1) != 0 {
		return nil, fmt.Errorf("ring of %d pages: must be a power of two", dataPages)
	}
	page := os.Getpagesize()
	mem, err := unix.Mmap(c.fd, 0, (1+dataPages)*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the ring buffer of %q (%d KiB): %w; raise kernel.perf_event_mlock_kb or use fewer pages",
			c.name, dataPages*page/1024, err)
	}
	off, size := unix.LoadUint64(mem, offDataOffset), unix.LoadUint64(mem, offDataSize)
	if off == 0 || size == 0 { // kernels before 4.1: the data follows the first page
		off, size = uint64(page), uint64(dataPages*page)
	}
	if off+size > uint64(len(mem)) {
		unix.Munmap(mem)
		return nil, fmt.Errorf("ring buffer of %q: the kernel placed %d bytes at %d in a %d-byte mapping", c.name, size, off, len(mem))
	}
	r := &Ring{c: c, mem: mem, data: mem[off : off+size], buf: make([]byte, 1<<16)}
	r.tail = unix.LoadUint64(mem, offDataTail)
	return r, nil
}

// SetOutput sends c's records to the ring of to (same CPU), so one ring serves several
// counters.
func (c *Counter) SetOutput(to *Counter) error {
	if err := unix.IoctlSetInt(c.fd, unix.PERF_EVENT_IOC_SET_OUTPUT, to.fd); err != nil {
		return fmt.Errorf("sending %q's records to %q's ring: %w", c.name, to.name, err)
	}
	return nil
}

// ErrRingCorrupt: a record header in the ring made no sense; the rest was skipped.
var ErrRingCorrupt = errors.New("corrupt record in the ring buffer")

// Drain hands every record the kernel has written since the last Drain to fn (which must
// copy what it keeps: the slice is reused) and gives the space back to the kernel. It
// returns the bytes read.
func (r *Ring) Drain(fn func(rec []byte) error) (int, error) {
	head := unix.LoadUint64(r.mem, offDataHead)
	size := uint64(len(r.data))
	start := r.tail
	var err error
	for r.tail < head && err == nil {
		off := r.tail % size
		// Records are 8-byte aligned and the ring's size a multiple of 8: a header never wraps.
		n := uint64(r.data[off+6]) | uint64(r.data[off+7])<<8
		if n < 8 || r.tail+n > head {
			err = ErrRingCorrupt
			r.tail = head
			break
		}
		var rec []byte
		if off+n <= size {
			rec = r.data[off : off+n]
		} else {
			k := copy(r.buf, r.data[off:])
			copy(r.buf[k:n], r.data[:n-uint64(k)])
			rec = r.buf[:n]
		}
		err = fn(rec)
		r.tail += n
	}
	unix.StoreUint64(r.mem, offDataTail, r.tail)
	return int(r.tail - start), err
}

// Close unmaps the ring (the counter stays open).
func (r *Ring) Close() error {
	if r == nil || r.mem == nil {
		return nil
	}
	err := unix.Munmap(r.mem)
	r.mem, r.data = nil, nil
	return err
}

// FD is the descriptor of the ring's counter, for Poller.Watch (the counter keeps it).
func (r *Ring) FD() int { return r.c.fd }

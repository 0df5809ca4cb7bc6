package record

import (
	"maps"
	"slices"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

func mmap2(pid uint32, addr, size uint64, prot uint32, file string, time uint64) *perfdata.Mmap {
	return &perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap2, Misc: perfdata.MiscUser},
		Origin: perfdata.Origin{Time: time}, PID: pid, TID: pid, Addr: addr, Len: size, Prot: prot, Filename: file}
}

func userSample(pid uint32, ip, time uint64) *perfdata.Sample {
	return &perfdata.Sample{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordSample, Misc: perfdata.MiscUser},
		Origin: perfdata.Origin{PID: pid, TID: pid, Time: time}, IP: ip}
}

func hitFiles(h *hits) []string { return slices.Sorted(maps.Keys(h.files)) }

// The files samples hit, and only those, as perf marks them: through a fork's copy of its
// parent's maps, not past an exec, not in a data mapping; the kernel only for a sample in
// its text (a module's address is another DSO).
func TestHits(t *testing.T) {
	h := newHits(0xffffffff81000000, 0xffffffff81e00000)
	h.add(mmap2(10, 0x400000, 0x1000, 5, "/bin/parent", 1))
	h.add(mmap2(10, 0x7f0000, 0x1000, 5, "/lib/libc.so", 1))
	h.add(mmap2(10, 0x900000, 0x1000, 3, "/data/file", 1)) // read-write, not code
	h.add(mmap2(10, 0xa00000, 0x1000, 5, "/lib/unused.so", 1))
	h.add(&perfdata.Task{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordFork}, Origin: perfdata.Origin{Time: 2}, PID: 11, PPID: 10, TID: 11, PTID: 10})
	h.add(userSample(11, 0x7f0100, 3)) // the child in its parent's libc
	h.add(&perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm, Misc: perfdata.MiscCommExec}, Origin: perfdata.Origin{Time: 4}, PID: 10, TID: 10, Comm: "new"})
	h.add(userSample(10, 0x400100, 5)) // after its exec: nothing mapped there any more
	h.add(userSample(10, 0x900100, 5)) // data
	h.add(&perfdata.Sample{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordSample, Misc: perfdata.MiscKernel},
		Origin: perfdata.Origin{PID: 10, TID: 10, Time: 6}, IP: 0xffffffffc0001000}) // a module
	h.round()
	h.flush(^uint64(0))
	if got := hitFiles(h); !slices.Equal(got, []string{"/lib/libc.so"}) || h.kernel {
		t.Errorf("hit %v, kernel %v; want /lib/libc.so alone", got, h.kernel)
	}
	h.add(&perfdata.Sample{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordSample, Misc: perfdata.MiscKernel},
		Origin: perfdata.Origin{PID: 10, TID: 10, Time: 7}, IP: 0xffffffff81000100})
	h.flush(^uint64(0))
	if !h.kernel {
		t.Error("a sample in the kernel's text did not mark the kernel")
	}
}

// Records come per CPU ring, one ring drained after the other: within a round and across
// two rounds they are applied in time order, so a sample drained before the mapping it
// lies in, or after an exec that came later, still finds its file.
func TestHitsTimeOrder(t *testing.T) {
	h := newHits(0, 0)
	// Round 1: CPU 1's ring (drained first) has the sample, CPU 0's the mapping before it.
	h.add(userSample(20, 0x500100, 20))
	h.add(mmap2(20, 0x500000, 0x1000, 5, "/bin/early", 10))
	// and an exec of process 30 at time 40, while a sample of 30 from time 35 (in a ring
	// drained before the exec's CPU wrote it) comes only with round 2.
	h.add(mmap2(30, 0x600000, 0x1000, 5, "/bin/before-exec", 11))
	h.add(&perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm, Misc: perfdata.MiscCommExec}, Origin: perfdata.Origin{Time: 40}, PID: 30, TID: 30})
	h.round()
	h.add(userSample(30, 0x600100, 35))
	h.round()
	h.flush(^uint64(0))
	if got := hitFiles(h); !slices.Equal(got, []string{"/bin/before-exec", "/bin/early"}) {
		t.Errorf("hit %v, want /bin/before-exec and /bin/early", got)
	}
	if len(h.queue) != 0 {
		t.Errorf("%d records left queued", len(h.queue))
	}
}

package record

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// hits follows the address space of every recorded process from the records as they are
// written (executable MMAP2/MMAP, a new process's FORK, an exec's COMM) and marks the files
// that samples hit: the build-id list holds those only, as perf's does (it marks the file
// of each sample's IP, build_id__mark_dso_hit), not every file mapped on the system.
//
// The rings of different CPUs are drained one after the other, so records are applied in
// time order the way perf orders them: at the end of each round, those not later than the
// latest time of the round before (a later one may still be in a ring drained first).
type hits struct {
	spaces     map[uint32][]region // by pid; newest region last
	files      map[string]uint16   // file -> its mapping's cpumode
	kernel     bool                // a sample in the kernel's text
	kstart     uint64              // the kernel's text, [kstart, kend)
	kend       uint64
	queue      []tracked
	seq        int
	latest     uint64 // the latest time queued
	prevLatest uint64 // the latest time of the round before
}

type region struct {
	start, end uint64
	file       string
	misc       uint16
}

type trackKind uint8

const (
	mapped trackKind = iota
	forked
	execed
	sampled
)

// tracked is one record as the tracker needs it.
type tracked struct {
	time      uint64
	seq       int
	kind      trackKind
	pid, ppid uint32
	start     uint64 // mapped: the mapping; sampled: the IP
	end       uint64
	file      string
	misc      uint16 // mapped: the record's cpumode; sampled: the sample's
}

func newHits(kstart, kend uint64) *hits {
	return &hits{spaces: map[uint32][]region{}, files: map[string]uint16{}, kstart: kstart, kend: kend}
}

// add queues one record written to the recording.
func (h *hits) add(r perfdata.Record) {
	var t tracked
	switch r := r.(type) {
	case *perfdata.Mmap:
		// perf's executable mappings: MMAP2 with PROT_EXEC, MMAP without the data flag.
		if r.Type == perfdata.RecordMmap2 && r.Prot&4 == 0 || r.Type == perfdata.RecordMmap && r.Misc&(1<<13) != 0 ||
			!strings.HasPrefix(r.Filename, "/") {
			return
		}
		t = tracked{time: r.Origin.Time, kind: mapped, pid: r.PID, start: r.Addr, end: r.Addr + r.Len, file: r.Filename, misc: r.CPUMode()}
	case *perfdata.Task:
		if r.Type != perfdata.RecordFork || r.PID == r.PPID {
			return // a new thread shares its process's space
		}
		t = tracked{time: r.Origin.Time, kind: forked, pid: r.PID, ppid: r.PPID}
	case *perfdata.Comm:
		if r.Misc&perfdata.MiscCommExec == 0 || r.PID != r.TID {
			return
		}
		t = tracked{time: r.Origin.Time, kind: execed, pid: r.PID}
	case *perfdata.Sample:
		t = tracked{time: r.Time, kind: sampled, pid: r.PID, start: r.IP, misc: r.CPUMode()}
	default:
		return
	}
	h.seq++
	t.seq = h.seq
	h.queue = append(h.queue, t)
	h.latest = max(h.latest, t.time)
}

// round applies what a round made safe to apply.
func (h *hits) round() {
	h.flush(h.prevLatest)
	h.prevLatest = h.latest
}

// flush applies, in time order, the queued records not later than limit.
func (h *hits) flush(limit uint64) {
	slices.SortStableFunc(h.queue, func(a, b tracked) int { return cmp.Compare(a.time, b.time) })
	n := 0
	for n < len(h.queue) && h.queue[n].time <= limit {
		h.apply(h.queue[n])
		n++
	}
	h.queue = append(h.queue[:0], h.queue[n:]...)
}

func (h *hits) apply(t tracked) {
	switch t.kind {
	case mapped:
		rs := h.spaces[t.pid]
		// Regions the new one covers whole are dropped: a process that maps and unmaps
		// code for ever (a JIT) does not grow its space for ever.
		rs = slices.DeleteFunc(rs, func(r region) bool { return r.start >= t.start && r.end <= t.end })
		h.spaces[t.pid] = append(rs, region{t.start, t.end, t.file, t.misc})
	case forked:
		h.spaces[t.pid] = slices.Clone(h.spaces[t.ppid])
	case execed:
		delete(h.spaces, t.pid)
	case sampled:
		switch t.misc {
		case perfdata.MiscKernel:
			if h.kstart == 0 || t.start >= h.kstart && t.start < h.kend {
				h.kernel = true
			}
		case perfdata.MiscUser:
			rs := h.spaces[t.pid]
			for i := len(rs) - 1; i >= 0; i-- {
				if t.start >= rs[i].start && t.start < rs[i].end {
					h.files[rs[i].file] = rs[i].misc
					break
				}
			}
		}
	}
}

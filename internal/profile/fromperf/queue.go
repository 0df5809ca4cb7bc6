package fromperf

import (
	"cmp"
	"slices"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
)

// queued is a record's place in the queue: its time, its arrival and its slot in
// queue.recs, or for a sample (slot < 0) in queue.samples (^slot). It holds no pointer, so
// that sorting moves 24 bytes an item and no write barrier runs while the collector marks.
type queued struct {
	t, seq uint64
	slot   int32
}

// qsample is a queued sample: a profile.SampleEvent whose call chain and branches are
// in the queue's arrays. It holds no pointer either: a file without rounds queues all its
// samples, and the collector passes over them.
type qsample struct {
	pid, tid          int32
	kernel, ipApart   bool
	ip, period, time  uint64
	cpu               int64
	event             uint64
	chain, nchain     uint32 // in queue.words
	branch, nbranches uint32 // in queue.branches
}

// queue holds the records not delivered yet: a sorted part (left over from the last
// round) and the records queued since, sorted and merged in when a round ends. Records
// are delivered in (time, arrival) order, a total order, as a heap would pop them.
type queue struct {
	items  []queued // items[:sorted] are in order
	sorted int
	spare  []queued
	recs   slots[perfdata.Record] // by slot

	samples      slots[qsample]      // by ^slot
	words        []uint64            // the queued samples' call chains
	branches     []profile.RawBranch // and branch stacks
	liveWords    int                 // of words, those of samples still queued
	liveBranches int
	spareWords   []uint64
	spareBr      []profile.RawBranch
}

func cmpQueued(a, b queued) int {
	if c := cmp.Compare(a.t, b.t); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

func (q *queue) add(t, seq uint64, r perfdata.Record) {
	slot := q.recs.alloc()
	*q.recs.at(slot) = r
	q.addItem(queued{t, seq, slot})
}

func (q *queue) addItem(x queued) {
	if len(q.items) == cap(q.items) {
		// Doubling: a file without rounds queues all its records, and append's growth
		// by a quarter would copy them ten times over.
		q.items = slices.Grow(q.items, max(len(q.items), 256))
	}
	q.items = append(q.items, x)
}

// slots holds values in blocks (none moves as more come) and reuses the slots freed.
type slots[T any] struct {
	blocks [][]T
	n      int32 // slots made
	free   []int32
}

// slotBlock is how many values a block holds.
const slotBlock = 1024

func (s *slots[T]) alloc() int32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	if s.n%slotBlock == 0 {
		s.blocks = append(s.blocks, make([]T, slotBlock))
	}
	s.n++
	return s.n - 1
}

func (s *slots[T]) at(i int32) *T { return &s.blocks[i/slotBlock][i%slotBlock] }

// release frees slot i, clearing its value.
func (s *slots[T]) release(i int32) {
	var zero T
	*s.at(i) = zero
	s.free = append(s.free, i)
}

// take returns x's record and frees its slot.
func (q *queue) take(x queued) perfdata.Record {
	r := *q.recs.at(x.slot)
	q.recs.release(x.slot)
	return r
}

// sort puts every queued record in order and returns them.
func (q *queue) sort() []queued {
	old, fresh := q.items[:q.sorted], q.items[q.sorted:]
	if !slices.IsSortedFunc(fresh, cmpQueued) {
		slices.SortFunc(fresh, cmpQueued)
	}
	if len(old) > 0 && len(fresh) > 0 && cmpQueued(fresh[0], old[len(old)-1]) < 0 {
		m := q.spare[:0]
		i, j := 0, 0
		for i < len(old) && j < len(fresh) {
			if cmpQueued(fresh[j], old[i]) < 0 {
				m = append(m, fresh[j])
				j++
			} else {
				m = append(m, old[i])
				i++
			}
		}
		m = append(append(m, old[i:]...), fresh[j:]...)
		q.items, q.spare = m, q.items[:0]
	}
	q.sorted = len(q.items)
	return q.items
}

// drop removes the first n records (after sort, once delivered).
func (q *queue) drop(n int) {
	k := copy(q.items, q.items[n:])
	q.items = q.items[:k]
	q.sorted = k
	switch {
	case k == 0:
		q.words, q.branches, q.liveWords, q.liveBranches = q.words[:0], q.branches[:0], 0, 0
	case len(q.words) > 1<<14 && len(q.words) > 2*q.liveWords || len(q.branches) > 1<<12 && len(q.branches) > 2*q.liveBranches:
		q.compact()
	}
}

// addSample queues sample e (its slices are copied).
func (q *queue) addSample(t, seq uint64, e profile.SampleEvent) {
	i := q.samples.alloc()
	*q.samples.at(i) = qsample{pid: int32(e.Pid), tid: int32(e.Tid), kernel: e.Kernel, ipApart: e.IPApart, ip: e.IP, period: e.Period,
		time: e.Time, cpu: int64(e.CPU), event: e.EventID,
		chain: uint32(len(q.words)), nchain: uint32(len(e.Callchain)),
		branch: uint32(len(q.branches)), nbranches: uint32(len(e.Branches))}
	q.words = appendDoubling(q.words, e.Callchain)
	q.branches = appendDoubling(q.branches, e.Branches)
	q.liveWords += len(e.Callchain)
	q.liveBranches += len(e.Branches)
	q.addItem(queued{t, seq, ^i})
}

// takeSample returns the sample of x and frees its slot; the event's slices are valid
// until drop.
func (q *queue) takeSample(x queued) profile.SampleEvent {
	i := ^x.slot
	s := *q.samples.at(i)
	q.samples.release(i)
	q.liveWords -= int(s.nchain)
	q.liveBranches -= int(s.nbranches)
	e := profile.SampleEvent{Pid: int(s.pid), Tid: int(s.tid), Kernel: s.kernel, IPApart: s.ipApart, IP: s.ip, Period: s.period,
		Time: s.time, CPU: int(s.cpu), EventID: s.event}
	if s.nchain > 0 {
		e.Callchain = q.words[s.chain : s.chain+s.nchain : s.chain+s.nchain]
	}
	if s.nbranches > 0 {
		e.Branches = q.branches[s.branch : s.branch+s.nbranches : s.branch+s.nbranches]
	}
	return e
}

// compact moves the call chains and branches of the samples still queued to the front of
// fresh arrays: delivered ones left holes.
func (q *queue) compact() {
	words, brs := q.spareWords[:0], q.spareBr[:0]
	for _, x := range q.items {
		if x.slot >= 0 {
			continue
		}
		s := q.samples.at(^x.slot)
		c, b := uint32(len(words)), uint32(len(brs))
		words = append(words, q.words[s.chain:s.chain+s.nchain]...)
		brs = append(brs, q.branches[s.branch:s.branch+s.nbranches]...)
		s.chain, s.branch = c, b
	}
	q.spareWords, q.spareBr = q.words[:0], q.branches[:0]
	q.words, q.branches = words, brs
}

// appendDoubling appends xs to s, growing s by doubling.
func appendDoubling[T any](s, xs []T) []T {
	if len(s)+len(xs) > cap(s) {
		s = slices.Grow(s, max(len(s), len(xs), 256))
	}
	return append(s, xs...)
}

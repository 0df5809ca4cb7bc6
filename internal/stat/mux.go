package stat

import (
	"sync"
	"time"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// BoundPeriod is how often a session reads its counters, while the workload runs, for the
// error bound of multiplexed counts (docs/multiplexing-error.md): short enough that a run of
// a tenth of a second gives ten slices, long enough that the reads cost well under 1%.
const BoundPeriod = 10 * time.Millisecond

// maxSlices bounds the slices kept per counter: when a counter has this many, neighbours are
// merged in pairs and the read period doubles, so memory and the reads' cost stay small
// however long the run and every slice keeps about the same length. Without -I a counter
// keeps 16 to 31 slices past its first 0.16 s (a 1 s run is read 37 times, a 10 s run about
// 64): Student's t of 15 is 2.13 against 1.96 for infinitely many, and the reads cost well
// under 1% of a 1 s run even in the QEMU guests, where a read and the two context switches
// around it take 100-150 us. With -I every interval needs its own slices, so the run keeps
// up to 64 (the period doubles at 0.64 s).
const (
	maxSlices         = 16
	maxSlicesInterval = 64
)

// slice is one counter's change between two reads: events counted, time enabled, time on
// the PMU.
type slice struct{ c, e, r uint64 }

// sliceBuf is one counter's slices since a cut.
type sliceBuf struct {
	s []slice
}

func (b *sliceBuf) add(s slice) { b.s = append(b.s, s) }

// halve merges neighbouring slices in pairs.
func (b *sliceBuf) halve() {
	n := 0
	for i := 0; i < len(b.s); i += 2 {
		m := b.s[i]
		if i+1 < len(b.s) {
			m.c, m.e, m.r = m.c+b.s[i+1].c, m.e+b.s[i+1].e, m.r+b.s[i+1].r
		}
		b.s[n] = m
		n++
	}
	b.s = b.s[:n]
}

// sampler reads a session's counters every period while the workload runs and keeps, per
// counter slot, the slices of the whole run and those since the last interval cut (-I).
type sampler struct {
	read   func() ([]Reading, error)
	period time.Duration
	// intervals: -I cuts the run into intervals, each with its own bound (cut).
	intervals bool
	reset     chan time.Duration // a new period after halving
	stop      chan struct{}
	done      chan struct{}
	once      sync.Once

	mu   sync.Mutex
	prev []perfevent.Value
	run  []sliceBuf
	iv   []sliceBuf
}

func startSampler(read func() ([]Reading, error), period time.Duration, intervals bool) *sampler {
	sm := &sampler{read: read, period: period, intervals: intervals, reset: make(chan time.Duration, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	go sm.loop()
	return sm
}

func (sm *sampler) loop() {
	defer close(sm.done)
	t := time.NewTicker(sm.period)
	defer t.Stop()
	for {
		select {
		case <-sm.stop:
			return
		case p := <-sm.reset:
			t.Reset(p)
		case <-t.C:
			rs, err := sm.read()
			if err != nil {
				return // the session is closing; Final reports what was read
			}
			sm.add(rs)
		}
	}
}

// add takes a reading of every slot as the end of a slice.
func (sm *sampler) add(rs []Reading) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.prev == nil {
		sm.prev = make([]perfevent.Value, len(rs))
		sm.run = make([]sliceBuf, len(rs))
		sm.iv = make([]sliceBuf, len(rs))
	}
	full, limit := false, maxSlices
	if sm.intervals {
		limit = maxSlicesInterval
	}
	for i, r := range rs {
		if i >= len(sm.prev) || r.Err != nil {
			continue
		}
		p := sm.prev[i]
		if r.Value.Enabled < p.Enabled || r.Value.Running < p.Running || r.Value.Raw < p.Raw {
			continue // a counter that went backwards (never on Linux): no slice
		}
		s := slice{c: r.Value.Raw - p.Raw, e: r.Value.Enabled - p.Enabled, r: r.Value.Running - p.Running}
		sm.prev[i] = r.Value
		if s.e == 0 {
			continue // the task did not run: nothing happened to the counter
		}
		sm.run[i].add(s)
		if sm.intervals {
			sm.iv[i].add(s)
		}
		full = full || len(sm.run[i].s) >= limit || len(sm.iv[i].s) >= limit
	}
	if full {
		for i := range sm.run {
			sm.run[i].halve()
			sm.iv[i].halve()
		}
		sm.period *= 2
		select {
		case sm.reset <- sm.period:
		default:
		}
	}
}

// halt stops the reads (idempotent) and waits for the one in progress.
func (sm *sampler) halt() {
	sm.once.Do(func() { close(sm.stop) })
	<-sm.done
}

// cut takes rs as the end of a slice and returns, per slot, the uncertainty of the count
// since the previous cut (an -I interval); the run's slices go on.
func (sm *sampler) cut(rs []Reading) []*Uncertainty {
	sm.add(rs)
	sm.mu.Lock()
	defer sm.mu.Unlock()
	out := uncertainties(sm.iv)
	for i := range sm.iv {
		sm.iv[i].s = sm.iv[i].s[:0]
	}
	return out
}

// uncertainties is each slot's uncertainty from its slices.
func uncertainties(bufs []sliceBuf) []*Uncertainty {
	out := make([]*Uncertainty, len(bufs))
	for i := range bufs {
		out[i] = uncertainty(bufs[i].s)
	}
	return out
}

// finish stops the reads, takes final as the last slice and returns, per slot, the
// uncertainty of the run's count.
func (sm *sampler) finish(final []Reading) []*Uncertainty {
	sm.halt()
	sm.add(final)
	sm.mu.Lock()
	defer sm.mu.Unlock()
	return uncertainties(sm.run)
}

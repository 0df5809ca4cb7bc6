package fromperf

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
)

// The queue delivers, round after round, exactly what a priority queue on (time, arrival)
// would pop: every record not later than the limit, in order.
func TestQueueRounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q queue
	var pending []queued // the reference: everything queued and not delivered
	seq, maxT, limit := uint64(0), uint64(0), uint64(0)
	for round := 0; round < 200; round++ {
		for i := rng.IntN(50); i > 0; i-- {
			seq++
			// Two CPUs' records, each late by up to 30 time units, some at equal times.
			tm := uint64(round*20) + uint64(rng.IntN(30))
			q.add(tm, seq, &perfdata.Comm{TID: uint32(seq)})
			pending = append(pending, queued{t: tm, seq: seq})
			maxT = max(maxT, tm)
		}
		if round == 199 {
			limit = ^uint64(0)
		}
		all := q.sort()
		n := 0
		for n < len(all) && all[n].t <= limit {
			n++
		}
		var got []queued
		for _, x := range all[:n] {
			if r := q.take(x).(*perfdata.Comm); uint64(r.TID) != x.seq {
				t.Fatalf("record %d came out as %d's", x.seq, r.TID)
			}
			got = append(got, queued{t: x.t, seq: x.seq})
		}
		q.drop(n)
		slices.SortFunc(pending, cmpQueued)
		k := 0
		for k < len(pending) && pending[k].t <= limit {
			k++
		}
		want := pending[:k]
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: delivered %v, want %v", round, got, want)
		}
		pending = slices.Clone(pending[k:])
		limit = maxT
	}
	if len(pending) != 0 || len(q.items) != 0 {
		t.Errorf("left %d, queue %d", len(pending), len(q.items))
	}
}

// Queued samples come out with their own call chains and branches, through rounds that
// leave samples behind and compact the arrays under them.
func TestQueueSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q queue
	seq, maxT, limit := uint64(0), uint64(0), uint64(0)
	delivered := 0
	for round := 0; round < 300; round++ {
		for i := rng.IntN(40); i > 0; i-- {
			seq++
			tm := uint64(round*20) + uint64(rng.IntN(30))
			e := profile.SampleEvent{Pid: int(seq), Tid: -int(seq), IP: seq, Period: seq * 3, Time: tm, CPU: int(seq % 7), EventID: seq % 3}
			for k := rng.IntN(200); k > 0; k-- {
				e.Callchain = append(e.Callchain, seq<<16|uint64(k))
			}
			for k := rng.IntN(20); k > 0; k-- {
				e.Branches = append(e.Branches, profile.RawBranch{From: seq, To: uint64(k), Cycles: seq ^ uint64(k)})
			}
			if seq%5 == 0 {
				q.add(tm, seq, &perfdata.Comm{TID: uint32(seq)})
			} else {
				q.addSample(tm, seq, e)
			}
			maxT = max(maxT, tm)
		}
		if round == 299 {
			limit = ^uint64(0)
		}
		all := q.sort()
		n := 0
		for n < len(all) && all[n].t <= limit {
			n++
		}
		for _, x := range all[:n] {
			if x.slot >= 0 {
				q.take(x)
				delivered++
				continue
			}
			e := q.takeSample(x)
			if uint64(e.Pid) != x.seq || e.Tid != -e.Pid || e.IP != x.seq || e.Period != 3*x.seq || e.Time != x.t || e.EventID != x.seq%3 {
				t.Fatalf("sample %d came out as %+v", x.seq, e)
			}
			for k, w := range e.Callchain {
				if w != x.seq<<16|uint64(len(e.Callchain)-k) {
					t.Fatalf("sample %d: chain %v", x.seq, e.Callchain)
				}
			}
			for k, b := range e.Branches {
				if b.From != x.seq || b.To != uint64(len(e.Branches)-k) || b.Cycles != b.From^b.To {
					t.Fatalf("sample %d: branches %v", x.seq, e.Branches)
				}
			}
			delivered++
		}
		q.drop(n)
		limit = maxT - 25
	}
	if delivered != int(seq) || len(q.items) != 0 {
		t.Errorf("delivered %d of %d, %d left", delivered, seq, len(q.items))
	}
}

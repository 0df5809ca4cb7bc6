package fromperf

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
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

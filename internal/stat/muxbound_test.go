package stat

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// TestUncertaintyCases: a counter that ran all the time needs no bound; one read on the PMU
// in fewer than 3 slices cannot have one; a steady rate has a bound of 0 however the
// counter was multiplexed; a rate that changes gives a bound that grows with the change.
func TestUncertaintyCases(t *testing.T) {
	if u := uncertainty([]slice{{100, 10, 10}, {200, 20, 20}}); u != nil {
		t.Errorf("never multiplexed: %+v, want nil", u)
	}
	if u := uncertainty([]slice{{0, 10, 0}, {0, 10, 0}}); u != nil {
		t.Errorf("never on the PMU: %+v, want nil (not counted)", u)
	}
	if u := uncertainty([]slice{{100, 10, 5}, {0, 10, 0}, {80, 10, 4}}); u == nil || u.Unknown == "" {
		t.Errorf("2 observed slices: %+v, want unknown", u)
	}
	steady := []slice{{50, 10, 5}, {20, 10, 2}, {100, 10, 10}, {0, 10, 0}, {70, 10, 7}}
	if u := uncertainty(steady); u == nil || u.Unknown != "" || u.Var != 0 {
		t.Errorf("steady rate: %+v, want a bound of 0", u)
	}
	small := []slice{{50, 10, 5}, {22, 10, 2}, {100, 10, 10}, {0, 10, 0}, {70, 10, 7}}
	big := []slice{{50, 10, 5}, {2, 10, 2}, {100, 10, 10}, {0, 10, 0}, {20, 10, 7}}
	us, ub := uncertainty(small), uncertainty(big)
	if us == nil || ub == nil || !(0 < us.Var && us.Var < ub.Var) {
		t.Errorf("changing rates: small %+v, big %+v; want 0 < small < big", us, ub)
	}
	if b := bound([]*Uncertainty{us}, 300); b == nil || !b.Known() || b.Abs <= 0 || b.Reads != 5 {
		t.Errorf("bound %+v", b)
	}
	if b := bound([]*Uncertainty{us, {Unknown: "too short"}}, 300); b.Known() {
		t.Errorf("a slot without a bound: %+v, want unknown", b)
	}
	if b := bound([]*Uncertainty{nil, nil}, 300); b != nil {
		t.Errorf("no multiplexed slot: %+v, want nil", b)
	}
}

// TestSliceHalving: at maxSlices a counter's slices are merged in pairs, totals unchanged.
func TestSliceHalving(t *testing.T) {
	var b sliceBuf
	for i := range 7 {
		b.add(slice{uint64(i), 10, 5})
	}
	b.halve()
	want := []slice{{1, 20, 10}, {5, 20, 10}, {9, 20, 10}, {6, 10, 5}}
	if !slices.Equal(b.s, want) {
		t.Errorf("halved %v, want %v", b.s, want)
	}
}

// muxSim simulates one counter of a workload whose event rate alternates between a fast and
// a slow phase of random lengths (mean phase ms each), multiplexed round robin: on the PMU
// for on of every n quanta of 4 ms from a random start, read every 10 ms. It returns the
// slices, the scaled estimate and the true count.
func muxSim(r *rand.Rand, phase float64, on, n int, lengthMS float64) ([]slice, float64, float64) {
	const dt = 0.05 // ms
	const quantum, period = 4.0, 10.0
	fast, slow := 1000.0, 50.0 // events per ms
	rate, left := fast, r.ExpFloat64()*phase
	offset := r.IntN(n)
	var out []slice
	var cur slice
	var raw, truth float64
	var sraw float64
	for t := 0.0; t < lengthMS; t += dt {
		if left -= dt; left <= 0 {
			if rate == fast {
				rate = slow
			} else {
				rate = fast
			}
			left = phase * (0.2 + 1.6*r.Float64())
		}
		ev := rate * dt
		truth += ev
		q := (int(t/quantum) + offset) % n
		cur.e += 50 // dt in ns units / 1000: only ratios matter
		if q < on {
			cur.r += 50
			sraw += ev
			raw += ev
		}
		if math.Mod(t+dt, period) < dt {
			cur.c = uint64(sraw)
			out = append(out, cur)
			cur, sraw = slice{}, 0
		}
	}
	if cur.e > 0 {
		cur.c = uint64(sraw)
		out = append(out, cur)
	}
	var e, rr float64
	for _, s := range out {
		e, rr = e+float64(s.e), rr+float64(s.r)
	}
	return out, raw * e / rr, truth
}

// TestBoundCoverageSimulated: over simulated multiplexed runs of phase-changing workloads
// (mean phases of 1 to 40 ms: shorter than a read, about the kernel's rotation, longer than
// it), the true count lies inside the 95% bound in at least 90% of all runs and the median
// bound is at most 5 times the median error; no phase length alone is far off (85%, 6x:
// phases about as long as the rotation are where the estimate errs most for its bound, and
// long phases where the bound is widest for its error). The QEMU guests check the same on
// the kernel's real multiplexing (test/qemu).
func TestBoundCoverageSimulated(t *testing.T) {
	boundCoverage(t, 200, 300, 6, func(sl []slice) []slice { return sl })
}

// TestBoundCoverageSimulatedLong: the same on 1 s runs, whose slices the sampler merges in
// pairs each time a counter holds maxSlices of them (reading half as often from then on), so
// the bound rests on 8 to 16 slices of 80 to 160 ms. The whole holds as on short runs; one
// kind alone may be up to 8 times its error: 40 ms phases, which slices of 80-160 ms average
// out (6.3x and 7.2x here, coverage 1.00; keeping 64 slices gave 5.6x and 6.3x, and 5.13x
// over all, above the 5x that 16 slices meet).
func TestBoundCoverageSimulatedLong(t *testing.T) {
	boundCoverage(t, 1000, 100, 8, func(raw []slice) []slice {
		var b sliceBuf
		var acc slice
		per, n := 1, 0
		for _, s := range raw {
			acc.c, acc.e, acc.r = acc.c+s.c, acc.e+s.e, acc.r+s.r
			if n++; n < per {
				continue
			}
			b.add(acc)
			acc, n = slice{}, 0
			if len(b.s) >= maxSlices {
				b.halve()
				per *= 2
			}
		}
		if n > 0 {
			b.add(acc) // the final read
		}
		if len(b.s) < maxSlices/2 || len(b.s) > maxSlices {
			t.Fatalf("%d slices of a 1 s run, want %d to %d", len(b.s), maxSlices/2, maxSlices)
		}
		return b.s
	})
}

// boundCoverage checks the bound's coverage over simulated runs of lengthMS, cruns per kind of
// workload, whose 10 ms slices sampled turns into those the bound sees; one kind's median
// bound may be at most kindRatio times its median error.
func boundCoverage(t *testing.T, lengthMS float64, cruns int, kindRatio float64, sampled func([]slice) []slice) {
	r := rand.New(rand.NewPCG(1, 2))
	in, runs := 0, 0
	var allErrs, allBounds []float64
	for _, c := range []struct {
		phase float64 // mean phase length, ms
		on, n int     // on the PMU on of n quanta: 6 of 9 (Cortex-A57), 4 of 9 (Cortex-A7)
	}{{1, 6, 9}, {5, 6, 9}, {15, 6, 9}, {40, 6, 9}, {5, 4, 9}, {15, 4, 9}, {40, 4, 9}} {
		name := fmt.Sprintf("phase %g ms, %d of %d", c.phase, c.on, c.n)
		cin := 0
		var errs, bounds []float64
		for range cruns {
			sl, est, truth := muxSim(r, c.phase, c.on, c.n, lengthMS)
			b := bound([]*Uncertainty{uncertainty(sampled(sl))}, est)
			if !b.Known() {
				t.Fatalf("%s: no bound: %+v", name, b)
			}
			e := math.Abs(est - truth)
			if e <= b.Abs {
				cin++
			}
			errs, bounds = append(errs, e/truth), append(bounds, b.Abs/truth)
		}
		in, runs = in+cin, runs+cruns
		allErrs, allBounds = append(allErrs, errs...), append(allBounds, bounds...)
		cover, ratio := float64(cin)/float64(cruns), median(bounds)/median(errs)
		t.Logf("%-22s coverage %.2f, median error %5.2f%%, median bound %5.2f%% (%.1fx)", name, cover, 100*median(errs), 100*median(bounds), ratio)
		if cover < 0.85 || ratio > kindRatio {
			t.Errorf("%s: coverage %.2f (want >= 0.85), median bound/median error %.1f (want <= %g)", name, cover, ratio, kindRatio)
		}
	}
	cover, ratio := float64(in)/float64(runs), median(allBounds)/median(allErrs)
	t.Logf("all %d runs: coverage %.3f, median bound/median error %.2f", runs, cover, ratio)
	if cover < 0.9 || ratio > 5 {
		t.Errorf("all runs: coverage %.3f (want >= 0.90), median bound/median error %.2f (want <= 5)", cover, ratio)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestSamplerCutAndFinish: the reads make slices per slot; a cut (an -I interval) bounds the
// slices since the previous cut, the end of the run all of them; at maxSlices neighbours
// merge and the read period doubles.
func TestSamplerCutAndFinish(t *testing.T) {
	sm := &sampler{period: BoundPeriod, intervals: true, reset: make(chan time.Duration, 1), stop: make(chan struct{}), done: make(chan struct{})}
	close(sm.done) // no read loop: the test feeds the readings
	var raw, en, run uint64
	read := func(rate, share uint64) []Reading {
		raw, en, run = raw+rate*share, en+10, run+share
		return []Reading{{Value: perfevent.Value{Raw: raw, Enabled: en, Running: run}}, {Err: errors.New("refused")}}
	}
	for i := range 6 {
		sm.add(read(100+uint64(i%2)*20, 5))
	}
	iv := sm.cut(read(100, 5))
	if iv[0] == nil || iv[0].Reads != 7 || iv[0].Var <= 0 || iv[1] != nil {
		t.Fatalf("first interval: %+v %+v", iv[0], iv[1])
	}
	for range 3 {
		sm.add(read(100, 5))
	}
	if iv := sm.cut(read(100, 5)); iv[0] == nil || iv[0].Reads != 4 || iv[0].Var != 0 {
		t.Errorf("second interval (a steady rate): %+v, want 4 slices and no variance", iv[0])
	}
	if all := sm.finish(read(100, 10)); all[0] == nil || all[0].Reads != 12 || all[0].Var <= 0 {
		t.Errorf("the run: %+v, want all 12 slices and the first interval's changes", all[0])
	}
	for range maxSlicesInterval {
		sm.add(read(100, 5))
	}
	if n := len(sm.run[0].s); n > maxSlicesInterval || n < maxSlicesInterval/2 || sm.period != 2*BoundPeriod {
		t.Errorf("after %d more reads: %d slices kept, period %v; want at most %d and a doubled period", maxSlicesInterval, n, sm.period, maxSlicesInterval)
	}
	// Without -I the run keeps fewer: its reads are the bound's only cost.
	sm = &sampler{period: BoundPeriod, reset: make(chan time.Duration, 1), stop: make(chan struct{}), done: make(chan struct{})}
	close(sm.done)
	for range maxSlices + 1 {
		sm.add(read(100, 5))
	}
	if n := len(sm.run[0].s); n > maxSlices || n < maxSlices/2 || sm.period != 2*BoundPeriod {
		t.Errorf("without -I, after %d reads: %d slices kept, period %v; want at most %d and a doubled period", maxSlices+1, n, sm.period, maxSlices)
	}
}

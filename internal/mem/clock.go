package mem

import (
	"math"
	"slices"
	"time"
)

// Clock says how pmc mem turned time into cycles on this machine.
type Clock struct {
	// Ticks is the timer of single hops: "rdpmc" (x86-64) or "pmccntr" (arm64), the
	// hardware cycle counter read from user space (ticks are cycles); "tsc" (x86 time-stamp
	// counter) or "monotonic" (the OS clock, nanosecond ticks) when it cannot be read.
	Ticks string `json:"ticks"`
	// TicksNote says why the cycle counter does not time single hops, and what would let it
	// (e.g. kernel.perf_user_access=1); empty when it does.
	TicksNote string `json:"ticks_note,omitempty"`
	// TickNS is the length of one tick in nanoseconds (measured against the monotonic clock
	// for the TSC).
	TickNS float64 `json:"tick_ns"`
	// Cycles is where cycle numbers come from: "pmu" (the hardware cycles event, counted),
	// "calibrated" (ns times the core clock measured with a dependent-add loop; no cycle
	// counter was read) or "none" (latencies in ns only).
	Cycles string `json:"cycles"`
	// GHz is the core clock used to convert ns to cycles; 0 when Cycles is "none".
	GHz float64 `json:"ghz,omitempty"`
	// Calibrations lists the rounds of the core-clock calibration (GHz, each the fastest of
	// its tries) when Cycles is "calibrated" or could not be: cycles are printed only when two
	// consecutive rounds agree within CalibrationTolerance.
	Calibrations []float64 `json:"calibrations_ghz,omitempty"`
	// GHzEnd is the core clock measured again after the sweep (calibrated cycles only).
	GHzEnd float64 `json:"ghz_end,omitempty"`
	// BiasTicks is the median of timing an empty interval: what every per-access sample
	// includes on top of the load itself (the seed's "measurement bias").
	BiasTicks float64 `json:"bias_ticks"`
	// ResolutionTicks is the step the tick clock advances by, measured from the spacing of
	// the empty-interval values (1 on a clock that counts every tick; about 24.5 on the
	// Zen 3 VM, whose TSC moves in 10 ns steps). Single-hop samples cannot resolve less.
	ResolutionTicks float64 `json:"resolution_ticks"`
}

// calibrateTicks measures the tick length against the monotonic clock over about d.
func calibrateTicks(d time.Duration) float64 {
	if tickSource == "monotonic" {
		return 1
	}
	var ratios []float64
	for range 3 {
		t0, k0 := time.Now(), ticks()
		for time.Since(t0) < d/3 {
		}
		k1 := ticks()
		ns := time.Since(t0)
		if k1 > k0 {
			ratios = append(ratios, float64(ns)/float64(k1-k0))
		}
	}
	if len(ratios) == 0 {
		return 0
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

// calibrateGHz times a chain of dependent adds (one cycle each) and returns the fastest
// observed core clock in GHz: the minimum time over several tries is the one least disturbed
// by other tasks. 0 when this architecture has no add chain.
func calibrateGHz(tries int) float64 {
	if !haveAddChain {
		return 0
	}
	const iters = 2_000_000 // 16M cycles, ~5 ms at 3 GHz
	best := time.Duration(1<<63 - 1)
	for range tries {
		t0 := time.Now()
		sink += uint32(addChain(iters))
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return float64(iters*cyclesPerIter) / float64(best.Nanoseconds())
}

// CalibrationTolerance is how far two rounds of the clock calibration may differ (relative)
// and still pin the clock down.
const CalibrationTolerance = 0.015

// pinClock runs rounds of the calibration (round returns one round's GHz) until two
// consecutive rounds agree within CalibrationTolerance, at most max rounds, and returns the
// faster of the two. A machine under load can make every try of a round slow (a VM's stolen
// time): rounds then disagree, and ghz is 0, the clock not pinned down. seen lists every
// round.
func pinClock(round func() float64, max int) (ghz float64, seen []float64) {
	for range max {
		g := round()
		if g <= 0 {
			return 0, seen
		}
		seen = append(seen, g)
		if n := len(seen); n >= 2 && agree(seen[n-2], g) {
			return math.Max(seen[n-2], g), seen
		}
	}
	return 0, seen
}

// agree reports whether two clock measurements are within CalibrationTolerance.
func agree(a, b float64) bool {
	return math.Abs(a-b) <= CalibrationTolerance*math.Max(a, b)
}

// measureBias returns the median of n empty timed intervals and the clock's resolution, in
// ticks.
func measureBias(tm timer, n int) (bias, resolution float64) {
	xs := make([]float64, 0, n)
	for range n {
		if t, ok := tm.nothing(); ok {
			xs = append(xs, float64(t))
		}
	}
	if len(xs) == 0 {
		return 0, 1
	}
	return median(xs), Resolution(xs)
}

// Resolution estimates the step of a clock from interval values measured with it (sorted in
// place): values within 2 ticks of each other are one cluster (a step of 24.5 ticks shows
// as 73 and 74), clusters holding under 1% of the values are dropped (an interrupt inside
// the interval is not a clock step), and the resolution is the smallest distance between
// consecutive remaining cluster means. A clock that counts every tick gives one cluster:
// resolution 1.
func Resolution(xs []float64) float64 {
	slices.Sort(xs)
	type cluster struct {
		sum float64
		n   int
	}
	var cs []cluster
	for i, x := range xs {
		if i == 0 || x-xs[i-1] > 2 {
			cs = append(cs, cluster{})
		}
		cs[len(cs)-1].sum += x
		cs[len(cs)-1].n++
	}
	minN := max(2, len(xs)/100)
	res, prev := math.Inf(1), math.NaN()
	for _, c := range cs {
		if c.n < minN {
			continue
		}
		m := c.sum / float64(c.n)
		if !math.IsNaN(prev) {
			res = math.Min(res, m-prev)
		}
		prev = m
	}
	if math.IsInf(res, 1) {
		return 1
	}
	return math.Round(res*10) / 10
}

// median of xs (sorted in place); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// quantile q (0..1) of sorted xs, nearest rank.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[i]
}

package stat

import (
	"math"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statistics"
)

// Uncertainty is how far one counter's scaled count may be off when it was multiplexed: the
// variance of its error and the degrees of freedom of that estimate, from its slices (see
// uncertainty), or why there is none.
type Uncertainty struct {
	Var     float64 // variance of scaled - true, in (events)^2
	DF      float64 // degrees of freedom of Var: the differences of rates it stands on
	Reads   int     // slices it stands on
	Unknown string  // set when the count was multiplexed but cannot be bounded
}

// minSlices is the fewest slices with the counter on the PMU that a bound stands on: two
// give one difference of rates, three the first that can tell a trend from a step.
const minSlices = 3

// uncertainty estimates the error of the scaled count Raw*Enabled/Running of a counter from
// its slices (the changes between periodic reads): nil when it ran all the time (exact) or
// never. The scaled count puts the run's mean rate of events into the time the counter was
// off the PMU; its error is how far the true rate there was from that. The slices the
// counter was on the PMU show how fast the rate moves: D, the mean squared difference of the
// rates of consecutive observed slices, is twice the variance of the rate's change from one
// slice to the next (the successive-difference estimator of systematic sampling, which a
// trend or a few long phases do not inflate as the spread around the mean would). Two parts
// add (docs/multiplexing-error.md):
//
//   - the unobserved blocks: each run of time off the PMU (u_b: slices with no running time,
//     and half the unobserved time of the partly observed slices on either side) holds the
//     rate of its neighbourhood up to one slice's change: D/2 * sum(u_b^2);
//   - the observed time as a sample of the run, as in a ratio estimator over m observed
//     slices: D/2 * E^2 * (1 - R/E) / m.
//
// D stands on m-1 differences: the bound takes Student's t quantile for them, wider than the
// normal one for a short run.
func uncertainty(s []slice) *Uncertainty {
	var e, r float64
	for _, x := range s {
		e, r = e+float64(x.e), r+float64(x.r)
	}
	if r == 0 || r >= e {
		return nil
	}
	u := &Uncertainty{Reads: len(s)}
	var rates, ran []float64
	var blocks, cur float64 // sum of squared unobserved blocks, the block being summed
	for _, x := range s {
		off := float64(x.e) - float64(x.r)
		if x.r == 0 {
			cur += off
			continue
		}
		rates, ran = append(rates, float64(x.c)/float64(x.r)), append(ran, float64(x.r))
		cur += off / 2
		blocks += cur * cur
		cur = off / 2
	}
	blocks += cur * cur
	if len(rates) < minSlices {
		u.Unknown = "too short: the counter was on the PMU in fewer than 3 of the 10 ms slices"
		return u
	}
	// A rate seen over a short time is noisier (the last slice, cut by the workload's exit,
	// may hold a fraction of a millisecond): each difference weighs as the harmonic mean of
	// its two slices' running times, since the variance of a difference of two rates grows
	// with 1/r_k + 1/r_k+1.
	var wd, w float64
	for i := 1; i < len(rates); i++ {
		d := rates[i] - rates[i-1]
		h := 2 * ran[i] * ran[i-1] / (ran[i] + ran[i-1])
		wd += h * d * d
		w += h
	}
	half := wd / w / 2
	u.Var = half * (blocks + e*e*(1-r/e)/float64(len(rates)))
	u.DF = float64(len(rates) - 1)
	return u
}

// bound combines the uncertainties of the slots summed into one count of value v (one slot,
// or a CPU's or thread's each with -a or inherited counts) into its 95% bound: nil when none
// was multiplexed. The slots' errors are independent (each is multiplexed on its own CPU):
// variances add, and their degrees of freedom combine as Welch and Satterthwaite do.
func bound(us []*Uncertainty, v float64) *result.Bound {
	var vr, den float64
	reads := 0
	any := false
	for _, u := range us {
		switch {
		case u == nil:
			continue
		case u.Unknown != "":
			return result.NoBound(u.Unknown)
		}
		any = true
		vr += u.Var
		if u.DF > 0 && !math.IsInf(u.DF, 1) {
			den += u.Var * u.Var / u.DF
		}
		if reads == 0 || u.Reads < reads {
			reads = u.Reads
		}
	}
	if !any {
		return nil
	}
	df := math.Inf(1)
	if den > 0 {
		df = vr * vr / den
	}
	return result.NewBound(tQuantile975(df)*math.Sqrt(vr), v, reads)
}

// tQuantile975 is the two-sided 95% quantile of Student's t with df degrees of freedom (at
// least 1), 1.96 for infinitely many.
func tQuantile975(df float64) float64 {
	if math.IsInf(df, 1) || df > 1e6 {
		return 1.959964
	}
	return statistics.TQuantile(0.975, math.Max(df, 1))
}

package statistics

import "math"

// Ratio is the ratio of two means, mean(B) / mean(A), with its confidence interval by
// Fieller's method for independent samples with unequal variances.
//
// Fieller's interval is the set of ratios r that a t test of mean(B) - r·mean(A) = 0 does
// not reject: (mb - r·ma)² <= t²·(vb + r²·va), with va and vb the squared standard errors of
// the means and t the quantile at the Welch–Satterthwaite degrees of freedom of B - r·A
// evaluated at the estimated ratio. The set is a finite interval only when A's mean is told
// from 0 at the level (t²·va < ma²); otherwise it is unbounded and Bounded is false: too few
// runs for their spread to say anything about the ratio.
//
// The interval of the ratio stays on the ratio's own scale, unlike a difference of means
// divided by the first mean: a quantity that cannot be negative (a time, a count) cannot
// change by less than -100%, and with NonNegative the interval is cut at 0 (intersecting a
// confidence set with the values the ratio can take keeps its coverage).
type Ratio struct {
	Ratio float64 `json:"ratio"` // mean(B) / mean(A)
	Low   float64 `json:"low"`   // the interval, when Bounded
	High  float64 `json:"high"`
	DF    float64 `json:"df"`    // Welch–Satterthwaite degrees of freedom of B - Ratio·A
	Level float64 `json:"level"` // confidence level, e.g. 0.95
	// Bounded: the interval is finite. False when A's mean cannot be told from 0 at the
	// level (few runs, much spread): then no interval is given.
	Bounded bool `json:"bounded"`
	// Significant: the interval excludes 1 (no change).
	Significant bool `json:"significant"`
}

// FiellerRatio gives the ratio mean(b) / mean(a) and its interval at the confidence level
// (0.95 for 95%). Each sample needs at least two values and a's mean must not be 0: ok is
// false otherwise. nonNegative says the values cannot be negative (times, counts): the
// interval then never goes below 0. When neither sample varies (exact counts) the interval
// is the ratio itself.
func FiellerRatio(a, b []float64, level float64, nonNegative bool) (r Ratio, ok bool) {
	if len(a) < 2 || len(b) < 2 || level <= 0 || level >= 1 {
		return r, false
	}
	ma, mb := Mean(a), Mean(b)
	if ma == 0 || math.IsNaN(ma) || math.IsNaN(mb) {
		return r, false
	}
	na, nb := float64(len(a)), float64(len(b))
	va, vb := variance(a)/na, variance(b)/nb
	r.Level, r.Ratio = level, mb/ma
	if va == 0 && vb == 0 {
		r.DF = na + nb - 2
		r.Low, r.High, r.Bounded = r.Ratio, r.Ratio, true
		r.Significant = r.Ratio != 1
		return r, true
	}
	rr := r.Ratio * r.Ratio
	if den := vb*vb/(nb-1) + rr*rr*va*va/(na-1); den > 0 {
		r.DF = (vb + rr*va) * (vb + rr*va) / den
	} else {
		// B is exactly 0 (ratio 0, vb 0): the limit as the ratio goes to 0 is A's own.
		r.DF = na - 1
	}
	t := TQuantile(1-(1-level)/2, r.DF)
	// With g = t²·va / ma², the roots are (ratio ± t/|ma|·sqrt(vb + ratio²·va - g·vb)) / (1 - g).
	g := t * t * va / (ma * ma)
	if g >= 1 {
		return r, true // unbounded
	}
	half := t / math.Abs(ma) * math.Sqrt(vb+rr*va-g*vb)
	r.Low, r.High = (r.Ratio-half)/(1-g), (r.Ratio+half)/(1-g)
	if nonNegative {
		r.Low = math.Max(r.Low, 0)
	}
	r.Bounded = true
	r.Significant = r.Low > 1 || r.High < 1
	return r, true
}

package statistics

import "math"

// Welch is Welch's t test and confidence interval for the difference of two means, B - A,
// without assuming equal variances (the Welch–Satterthwaite degrees of freedom).
type Welch struct {
	Diff  float64 `json:"diff"`  // mean(B) - mean(A)
	Low   float64 `json:"low"`   // confidence interval of Diff
	High  float64 `json:"high"`  //
	SE    float64 `json:"se"`    // standard error of Diff
	DF    float64 `json:"df"`    // Welch–Satterthwaite degrees of freedom
	T     float64 `json:"t"`     // Diff / SE
	P     float64 `json:"p"`     // two-sided p-value
	Level float64 `json:"level"` // confidence level, e.g. 0.95
	// Significant: the interval excludes 0 (equivalently P < 1 - Level).
	Significant bool `json:"significant"`
}

// WelchTest compares b with a at the confidence level (0.95 for a 95% interval). Each needs
// at least two values: ok is false otherwise. When neither varies (exact counts), SE is 0:
// the interval is the difference itself, significant when it is not 0, and DF is
// n_a + n_b - 2.
func WelchTest(a, b []float64, level float64) (w Welch, ok bool) {
	na, nb := float64(len(a)), float64(len(b))
	if len(a) < 2 || len(b) < 2 || level <= 0 || level >= 1 {
		return w, false
	}
	va, vb := variance(a)/na, variance(b)/nb
	w.Level = level
	w.Diff = Mean(b) - Mean(a)
	w.SE = math.Sqrt(va + vb)
	if w.SE == 0 {
		w.DF = na + nb - 2
		w.Low, w.High = w.Diff, w.Diff
		w.Significant = w.Diff != 0
		w.T, w.P = math.Copysign(math.Inf(1), w.Diff), 0
		if w.Diff == 0 {
			w.T, w.P = 0, 1
		}
		return w, true
	}
	w.DF = (va + vb) * (va + vb) / (va*va/(na-1) + vb*vb/(nb-1))
	w.T = w.Diff / w.SE
	w.P = 2 * TCDF(-math.Abs(w.T), w.DF)
	q := TQuantile(1-(1-level)/2, w.DF)
	w.Low, w.High = w.Diff-q*w.SE, w.Diff+q*w.SE
	w.Significant = w.Low > 0 || w.High < 0
	return w, true
}

func variance(xs []float64) float64 {
	s := Stddev(xs)
	return s * s
}

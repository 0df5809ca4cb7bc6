package statistics

import (
	"math"
	"slices"
)

// Sample describes a set of values.
type Sample struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"` // sample standard deviation (n-1); 0 for fewer than two values
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	// Outliers are the indices (into the values described) beyond Tukey's fences.
	Outliers []int `json:"outliers,omitempty"`
}

// Describe summarizes xs (which it does not modify).
func Describe(xs []float64) Sample {
	s := Sample{N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	s.Mean, s.Stddev = Mean(xs), Stddev(xs)
	s.Min, s.Max = slices.Min(xs), slices.Max(xs)
	s.Median = Quantile(xs, 0.5)
	s.Outliers = Outliers(xs)
	return s
}

// Mean is the arithmetic mean of xs, NaN when there are none. It sums deviations from the
// first value so that large counts with small differences keep their digits.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var d float64
	for _, x := range xs {
		d += x - xs[0]
	}
	return xs[0] + d/float64(len(xs))
}

// Stddev is the sample standard deviation (divisor n-1), 0 for fewer than two values.
func Stddev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := Mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// Quantile is the p-quantile of xs by linear interpolation between order statistics
// (numpy.quantile's default, R's type 7). NaN for no values.
func Quantile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := p * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Fence is Tukey's multiple of the interquartile range: values more than 1.5 IQR below the
// first quartile or above the third are outliers.
const Fence = 1.5

// Outliers returns the indices of the values of xs outside Tukey's fences, in order. Fewer
// than four values have no quartiles worth the name: none is flagged. Nor is any when the
// quartiles coincide (exact counts that repeat): an interquartile range of 0 puts the fences
// on the median, and every value off it would be flagged.
func Outliers(xs []float64) []int {
	if len(xs) < 4 {
		return nil
	}
	q1, q3 := Quantile(xs, 0.25), Quantile(xs, 0.75)
	if q3 == q1 {
		return nil
	}
	lo, hi := q1-Fence*(q3-q1), q3+Fence*(q3-q1)
	var out []int
	for i, x := range xs {
		if x < lo || x > hi {
			out = append(out, i)
		}
	}
	return out
}

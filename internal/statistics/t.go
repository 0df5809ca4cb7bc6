package statistics

import "math"

// TCDF is the cumulative distribution function of Student's t distribution with df degrees
// of freedom (df > 0, not necessarily whole) at t.
func TCDF(t, df float64) float64 {
	if math.IsNaN(t) || df <= 0 || math.IsNaN(df) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	// P(|T| > |t|) = I_x(df/2, 1/2) with x = df / (df + t²).
	tail := 0.5 * RegIncBeta(df/2, 0.5, df/(df+t*t))
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// TQuantile is the inverse of TCDF: the t with TCDF(t, df) = p, for 0 < p < 1. It is found
// by bisection on the upper tail P(T > t) = 1 - p, which keeps its relative precision far
// out where the CDF itself rounds to 1.
func TQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || p <= 0 || p >= 1 || df <= 0:
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -TQuantile(1-p, df)
	}
	q := 1 - p
	upper := func(t float64) float64 { return 0.5 * RegIncBeta(df/2, 0.5, df/(df+t*t)) }
	lo, hi := 0.0, 1.0
	for upper(hi) > q {
		lo, hi = hi, hi*2
		if hi > 1e300 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if upper(mid) > q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// RegIncBeta is the regularized incomplete beta function I_x(a, b), for a, b > 0 and
// 0 <= x <= 1, from its continued fraction evaluated with the modified Lentz method (the
// fraction converges fast for x < (a+1)/(a+b+2); otherwise the symmetry
// I_x(a, b) = 1 - I_{1-x}(b, a) is used).
func RegIncBeta(a, b, x float64) float64 {
	switch {
	case a <= 0 || b <= 0 || x < 0 || x > 1 || math.IsNaN(x):
		return math.NaN()
	case x == 0:
		return 0
	case x == 1:
		return 1
	}
	if x > (a+1)/(a+b+2) {
		return 1 - RegIncBeta(b, a, 1-x)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(a*math.Log(x)+b*math.Log1p(-x)-(la+lb-lab)) / a
	return front * betaFraction(a, b, x)
}

// betaFraction evaluates 1/(1+ d1/(1+ d2/(1+ ...))), the continued fraction of I_x(a, b),
// where d(2m+1) = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and d(2m) = m(b-m)x / ((a+2m-1)(a+2m)).
func betaFraction(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-16
	nonzero := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	f, c, d := tiny, tiny, 0.0 // f = b0 = 0 replaced by tiny; the fraction starts at 1/(1+...)
	step := func(num float64) bool {
		d = 1 / nonzero(1+num*d)
		c = nonzero(1 + num/c)
		delta := c * d
		f *= delta
		return math.Abs(delta-1) < eps
	}
	if step(1) {
		return f
	}
	for m := 0; m < 10000; m++ {
		fm := float64(m)
		odd := -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		if step(odd) {
			break
		}
		fm++
		even := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		if step(even) {
			break
		}
	}
	return f
}

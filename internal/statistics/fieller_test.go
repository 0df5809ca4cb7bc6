package statistics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFieller checks the interval against testdata/fieller.py, which finds it with scipy by
// root finding on the test it inverts (not by the closed form used here).
func TestFieller(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		a, b              []float64
		ratio, lo, hi, df float64 // lo, hi NaN: unbounded
	}{
		{[]float64{1.234, 1.251, 1.229, 1.262, 1.24}, []float64{0.834, 0.851, 0.829, 0.862, 0.841, 0.845}, 0.6786250536250535, 0.6671951149823538, 0.6902149620208302, 8.956325779348482},
		{[]float64{10, 12, 9, 11, 13}, []float64{11, 12, 10, 12, 14}, 1.0727272727272728, 0.8813342203901131, 1.312629603897452, 7.860284358067143},
		{[]float64{0.52, 0.61, 0.55}, []float64{1.9, 2.4, 2.1}, 3.8095238095238098, 2.950631746141881, 4.815831065851563, 3.5629102593527655},
		{[]float64{100.0, 101.0, 99.0}, []float64{1.0, 30.0, 2.0}, 0.11, -0.298973118773994, 0.519108940027018, 2.000178597785622},
		{[]float64{100.0, 130.0}, []float64{40.0, 90.0}, 0.5652173913043478, nan, nan, 1.227016121846671},
		{[]float64{3.0, 1.0}, []float64{2.0, 2.5}, 1.125, nan, nan, 1.0985251634483808},
	} {
		r, ok := FiellerRatio(c.a, c.b, 0.95, false)
		if !ok {
			t.Fatalf("%v %v: refused", c.a, c.b)
		}
		close(t, "ratio", r.Ratio, c.ratio, 1e-14)
		close(t, "df", r.DF, c.df, 1e-12)
		if math.IsNaN(c.lo) {
			if r.Bounded {
				t.Errorf("%v %v: interval [%g, %g], want unbounded", c.a, c.b, r.Low, r.High)
			}
			continue
		}
		if !r.Bounded {
			t.Errorf("%v %v: unbounded, want [%g, %g]", c.a, c.b, c.lo, c.hi)
			continue
		}
		close(t, "low", r.Low, c.lo, 1e-8) // scipy's t quantile is good to ~5e-9
		close(t, "high", r.High, c.hi, 1e-8)
		if want := c.lo > 1 || c.hi < 1; r.Significant != want {
			t.Errorf("%v %v: significant %v, want %v", c.a, c.b, r.Significant, want)
		}
	}
	// A count cannot fall by more than 100%: the same samples, known non-negative, cut at 0.
	r, _ := FiellerRatio([]float64{100, 101, 99}, []float64{1, 30, 2}, 0.95, true)
	if r.Low != 0 || math.Abs(r.High-0.519108940027018) > 1e-8 {
		t.Errorf("non-negative: [%g, %g], want [0, 0.5191]", r.Low, r.High)
	}
	// Exact counts: the ratio is the interval.
	if r, ok := FiellerRatio([]float64{200, 200}, []float64{150, 150, 150}, 0.95, true); !ok || !r.Bounded || r.Low != 0.75 || r.High != 0.75 || !r.Significant {
		t.Errorf("exact counts: %+v", r)
	}
	for _, c := range [][2][]float64{{{1}, {1, 2}}, {{0, 0}, {1, 2}}} {
		if _, ok := FiellerRatio(c[0], c[1], 0.95, true); ok {
			t.Errorf("%v vs %v: one value or a zero mean has no ratio interval", c[0], c[1])
		}
	}
}

// TestFiellerCoverage draws normal samples with a known ratio of means (fixed seed) and
// counts how often the 95% interval holds it: an unbounded answer holds it too. 4000
// trials give a standard error of 0.34%.
func TestFiellerCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		na, nb       int
		cvA, cvB, rt float64
	}{{3, 3, 0.05, 0.10, 0.7}, {5, 4, 0.20, 0.05, 1.5}, {10, 10, 0.30, 0.30, 0.4}} {
		held, unbounded := 0, 0
		const trials = 4000
		for i := 0; i < trials; i++ {
			a, b := make([]float64, c.na), make([]float64, c.nb)
			for j := range a {
				a[j] = 100 * (1 + c.cvA*rng.NormFloat64())
			}
			for j := range b {
				b[j] = 100 * c.rt * (1 + c.cvB*rng.NormFloat64())
			}
			r, _ := FiellerRatio(a, b, 0.95, false)
			switch {
			case !r.Bounded:
				held++
				unbounded++
			case r.Low <= c.rt && c.rt <= r.High:
				held++
			}
		}
		cov := float64(held) / trials
		t.Logf("%+v: coverage %.4f, %d unbounded", c, cov, unbounded)
		if cov < 0.935 || cov > 0.965 {
			t.Errorf("%+v: coverage %.4f (%d unbounded), want 0.95", c, cov, unbounded)
		}
	}
}

// TestFiellerZero: a quantity that is 0 in every run of B (a guest's user time) against one
// that varies in A: the ratio is exactly 0, the interval [0, 0], and nothing is NaN (the
// degrees of freedom of B - r·A at r = 0 are A's alone).
func TestFiellerZero(t *testing.T) {
	r, ok := FiellerRatio([]float64{0.0013, 0.0012, 0.0014}, []float64{0, 0, 0}, 0.95, true)
	if !ok || !r.Bounded || r.Ratio != 0 || r.Low != 0 || r.High != 0 || r.DF != 2 || !r.Significant {
		t.Errorf("B all 0: %+v", r)
	}
	for _, v := range []float64{r.Ratio, r.Low, r.High, r.DF} {
		if math.IsNaN(v) {
			t.Errorf("NaN in %+v", r)
		}
	}
}

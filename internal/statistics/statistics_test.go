package statistics

import (
	"math"
	"slices"
	"testing"
)

// The constants below were computed by scipy 1.10 / numpy 1.24 (Debian 12) with
//
//	/usr/bin/python3 internal/statistics/testdata/reference.py
//
// and pasted as printed.

func close(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g (scipy)", what, got, want)
	}
}

func TestTQuantile(t *testing.T) {
	for _, c := range [][3]float64{ // p, df, stats.t.ppf(p, df)
		{0.975, 1, 12.706204736432095},
		{0.975, 2, 4.302652729911275},
		{0.975, 3, 3.182446305284263},
		{0.975, 5.5, 2.501858612469493},
		{0.975, 10, 2.2281388519649385},
		{0.975, 30, 2.0422724563012373},
		{0.975, 1000, 1.9623390808264074},
		{0.995, 4, 4.604094871415897},
		{0.05, 7, -1.8945786050613054},
	} {
		// scipy's ppf is itself off by up to 1.7e-10 in p (stats.t.cdf(stats.t.ppf(0.975, 5.5),
		// 5.5) - 0.975 = -1.65e-10), i.e. ~5e-9 in t: compare to 1e-8, and to the closed
		// forms of df 1 and 2 to 1e-12 below.
		close(t, "TQuantile", TQuantile(c[0], c[1]), c[2], 1e-8)
		close(t, "TCDF(TQuantile)", TCDF(TQuantile(c[0], c[1]), c[1]), c[0], 1e-15)
	}
	for _, p := range []float64{0.6, 0.9, 0.975, 0.995, 0.9995} {
		close(t, "TQuantile df 1", TQuantile(p, 1), math.Tan(math.Pi*(p-0.5)), 1e-12) // 1-p itself rounds at 1e-13
		close(t, "TQuantile df 2", TQuantile(p, 2), (2*p-1)/math.Sqrt(2*p*(1-p)), 1e-12)
	}
	if !math.IsNaN(TQuantile(1, 3)) || !math.IsNaN(TQuantile(0.9, 0)) {
		t.Error("TQuantile outside (0, 1) or with df <= 0 must be NaN")
	}
}

func TestTCDF(t *testing.T) {
	for _, c := range [][3]float64{ // t, df, stats.t.cdf(t, df)
		{2.0, 3.7, 0.939091399047383},
		{-1.3, 12, 0.10900858554175712},
		{0.4, 1, 0.6211189415908434},
		{25.0, 2.2, 0.9995195131314505},
	} {
		close(t, "TCDF", TCDF(c[0], c[1]), c[2], 1e-13)
	}
}

func TestRegIncBeta(t *testing.T) {
	for _, c := range [][4]float64{ // a, b, x, special.betainc(a, b, x)
		{2.5, 0.5, 0.3, 0.01892712407194565},
		{0.5, 7, 0.9, 0.9999999780702158},
		{30, 40, 0.45, 0.6447480085585666},
	} {
		close(t, "RegIncBeta", RegIncBeta(c[0], c[1], c[2]), c[3], 1e-13)
	}
}

func TestWelch(t *testing.T) {
	for _, c := range []struct {
		a, b                       []float64
		diff, low, high, df, tv, p float64
		significant                bool
	}{
		{[]float64{1.234, 1.251, 1.229, 1.262, 1.240}, []float64{0.834, 0.851, 0.829, 0.862, 0.841, 0.845},
			-0.3995333333333334, -0.4171940009785808, -0.38187266568808603, 8.185663220836407, -51.9629703135087, 1.3189007156421032e-11, true},
		{[]float64{10, 12, 9, 11, 13}, []float64{11, 12, 10, 12, 14},
			0.8000000000000007, -1.4373404962075722, 3.0373404962075736, 7.967538322813346, 0.8251369970070354, 0.43330190116261413, false},
	} {
		w, ok := WelchTest(c.a, c.b, 0.95)
		if !ok {
			t.Fatal("WelchTest refused two samples of 5 and 6")
		}
		close(t, "diff", w.Diff, c.diff, 1e-12)
		close(t, "low", w.Low, c.low, 1e-9) // the t quantile: scipy's is good to ~5e-9
		close(t, "high", w.High, c.high, 1e-9)
		close(t, "df", w.DF, c.df, 1e-12)
		close(t, "t", w.T, c.tv, 1e-10)
		if math.Abs(w.P-c.p) > 1e-9*c.p {
			t.Errorf("p = %g, want %g", w.P, c.p)
		}
		if w.Significant != c.significant {
			t.Errorf("significant = %v, want %v", w.Significant, c.significant)
		}
	}
	if _, ok := WelchTest([]float64{1}, []float64{1, 2}, 0.95); ok {
		t.Error("one value has no variance: WelchTest must refuse it")
	}
	// Exact counts (the QEMU guests' instructions): no spread, the difference is the interval.
	w, ok := WelchTest([]float64{100, 100}, []float64{90, 90, 90}, 0.95)
	if !ok || w.Low != -10 || w.High != -10 || !w.Significant || w.P != 0 {
		t.Errorf("constant samples: %+v", w)
	}
}

func TestDescribe(t *testing.T) {
	xs := []float64{10, 11, 12, 11, 10, 30, 11, 12}
	s := Describe(xs)
	close(t, "mean", s.Mean, 13.375, 1e-15)
	close(t, "stddev", s.Stddev, 6.759913355319621, 1e-14)
	close(t, "q1", Quantile(xs, 0.25), 10.75, 1e-15)
	close(t, "median", s.Median, 11.0, 1e-15)
	close(t, "q3", Quantile(xs, 0.75), 12.0, 1e-15)
	// Fences 10.75 - 1.5*1.25 = 8.875 and 12 + 1.875 = 13.875: only the 30 (index 5).
	if !slices.Equal(s.Outliers, []int{5}) || s.Min != 10 || s.Max != 30 || s.N != 8 {
		t.Errorf("Describe = %+v", s)
	}
	if Outliers([]float64{1, 100, 1}) != nil {
		t.Error("three values: no quartiles, no outliers")
	}
	if s := Describe(nil); s.N != 0 || s.Stddev != 0 {
		t.Errorf("Describe(nil) = %+v", s)
	}
}

// TestOutliersExactCounts: exact counts (the QEMU guests' instructions:u) repeat the same
// value; one run a count higher is not an outlier when the quartiles coincide: with an
// interquartile range of 0 the fences say nothing about spread.
func TestOutliersExactCounts(t *testing.T) {
	for _, xs := range [][]float64{{6249, 6249, 6249, 6249, 6251}, {5, 5, 5, 5, 5, 4}, {7, 7, 7, 7}} {
		if o := Outliers(xs); o != nil {
			t.Errorf("Outliers(%v) = %v, want none (IQR 0)", xs, o)
		}
	}
}

package mem

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// expand turns value:count pairs into samples.
func expand(pairs [][2]int) []float64 {
	var xs []float64
	for _, p := range pairs {
		for range p[1] {
			xs = append(xs, float64(p[0]))
		}
	}
	return xs
}

// TestHistogramGolden renders the seed's own sample distributions (8 KiB, 64 KiB and 1 MiB
// lists on the BCM2835, value and count as printed in the post) and a wide DRAM-like one
// with outliers, and compares with testdata/hist.golden.
func TestHistogramGolden(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var wide []float64
	for range 950 {
		wide = append(wide, 450+r.NormFloat64()*40)
	}
	for range 40 {
		wide = append(wide, 800+r.Float64()*300)
	}
	wide = append(wide, 93, 94, 5000, 12000, 30000, 25, 26, 27, 28, 29)
	cases := []struct {
		name string
		xs   []float64
	}{
		{"seed 8KB", expand([][2]int{{9, 1000}})},
		{"seed 64KB", expand([][2]int{{9, 49}, {17, 1}, {61, 320}, {62, 571}, {63, 11}, {64, 4}, {65, 1}, {69, 1}, {70, 27}})},
		{"seed 1MB", expand([][2]int{{113, 4}, {116, 224}, {117, 23}, {118, 59}, {119, 129}, {120, 5}, {121, 224}, {122, 185},
			{125, 4}, {130, 9}, {132, 7}, {133, 18}, {135, 5}})},
		{"wide", wide},
		{"fractional", []float64{92.6, 92.6, 93.9, 62.1, 124.3}},
	}
	var b bytes.Buffer
	for _, c := range cases {
		fmt.Fprintf(&b, "%s:\n", c.name)
		bins := Histogram(c.xs, 20)
		total := 0
		for _, bin := range bins {
			total += bin.Count
		}
		if total != len(c.xs) {
			t.Errorf("%s: bins hold %d samples, want %d", c.name, total, len(c.xs))
		}
		if len(bins) > 20 {
			t.Errorf("%s: %d rows, more than 20", c.name, len(bins))
		}
		WriteHistogram(&b, bins, "")
	}
	golden(t, "hist.golden", b.Bytes())
	if Histogram(nil, 20) != nil {
		t.Error("no samples must give no bins")
	}
}

func TestResolution(t *testing.T) {
	// The Zen 3 VM's TSC: empty intervals of 49, 73/74, 98 ticks (steps of 24.5).
	if got := Resolution([]float64{49, 73, 74, 73, 98, 49, 122, 123}); got < 24 || got > 25 {
		t.Errorf("stepped clock: resolution %g, want 24.5", got)
	}
	// The arm64 QEMU guest's monotonic clock: 144 ns intervals and one timer interrupt.
	xs := []float64{14432}
	for range 20 {
		xs = append(xs, 144)
	}
	if got := Resolution(xs); got != 1 {
		t.Errorf("an outlier is not a clock step: resolution %g, want 1", got)
	}
	// A clock that counts every tick: one cluster.
	if got := Resolution([]float64{40, 41, 42, 41, 43, 44, 42}); got != 1 {
		t.Errorf("fine clock: resolution %g, want 1", got)
	}
}

func TestStats(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	s := Stats(xs, "ns", 1)
	if s.Count != 5 || s.Min != 1 || s.Median != 3 || s.Max != 5 || s.P10 != 1 || s.P90 != 5 {
		t.Errorf("%+v", s)
	}
}

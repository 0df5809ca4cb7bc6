package mem

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
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
		bins := Histogram(c.xs, 20, 1)
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
		WriteHistogram(&b, bins, "", 1)
	}
	golden(t, "hist.golden", b.Bytes())
	if Histogram(nil, 20, 1) != nil {
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

// fakeTSC is a time-stamp counter that advances in steps of 24.5 ticks (10 ns at 2.445
// GHz), like the Zen 3 VM's: reading it at time ns gives the last step's value.
func fakeTSC(ns float64) uint64 { return uint64(math.Floor(ns/10) * 24.5) }

// TestHistogramOneStepOneBin: single hops of 30..40 ns timed with a stepped TSC read as
// 73 or 74 ticks (3 steps) or 98 (4 steps); in cycles (x1.2953) that is 94.6, 95.8 and 126.9.
// Binned by integers they were three rows (one step shown as two); aligned to the clock's
// resolution they are two, and the rows' labels are whole steps.
func TestHistogramOneStepOneBin(t *testing.T) {
	const scale = 0.409 * 3.167 // ns per tick x GHz: cycles per tick
	r := rand.New(rand.NewPCG(3, 4))
	var bias, xs []float64
	for range 500 {
		start := r.Float64() * 1e6
		bias = append(bias, float64(fakeTSC(start+21)-fakeTSC(start)))
		xs = append(xs, float64(fakeTSC(start+31+r.Float64()*4)-fakeTSC(start))*scale)
	}
	res := Resolution(bias) // ticks
	if res < 24 || res > 25 {
		t.Fatalf("fake TSC resolution %g ticks, want 24.5", res)
	}
	bins := Histogram(xs, 20, res*scale)
	var b bytes.Buffer
	WriteHistogram(&b, bins, "", res*scale)
	if len(bins) != 2 || bins[0].Count+bins[1].Count != 500 {
		t.Fatalf("%d rows, want 2 (3 and 4 steps):\n%s", len(bins), b.String())
	}
	for _, bin := range bins {
		if k := bin.Low / (res * scale); math.Abs(k-math.Round(k)) > 0.01 {
			t.Errorf("row %g is not a whole number of steps (%g)", bin.Low, k)
		}
	}
	if old := Histogram(xs, 20, 1); len(old) != 3 {
		t.Errorf("integer bins: %d rows; the test no longer shows the split it guards against", len(old))
	}
	// Many steps: the rows widen by whole steps and the labels end on a step.
	var wide []float64
	for k := range 400 {
		wide = append(wide, float64(k%60)*res*scale)
	}
	bins = Histogram(wide, 20, res*scale)
	b.Reset()
	WriteHistogram(&b, bins, "", res*scale)
	if len(bins) > 20 || !strings.HasPrefix(strings.TrimSpace(b.String()), "0-127 ") {
		t.Errorf("wide stepped samples:\n%s", b.String())
	}
}

// TestSamplesFileOneValuePerStep is the case: a TSC that advances in steps of 24.5
// ticks reads one 10 ns step as 24 or 25 ticks, 9.8 or 10.2 ns; the histogram shows one row
// for it, and the samples file must show one value too, or the seed's awk one-liner prints
// a false bimodal peak. Every value written is a row of the histogram, with its count.
func TestSamplesFileOneValuePerStep(t *testing.T) {
	clk := Clock{Ticks: "tsc", TickNS: 10 / 24.5, ResolutionTicks: 24.5}
	var p Point
	p.SizeBytes = 8192
	finishPoint(&p, []uint64{24, 25, 25, 24, 25, 49, 50, 49, 24, 25}, clk)
	r := &Result{Clock: clk, Points: []Point{p}}
	var b strings.Builder
	if err := WriteSamples(&b, r); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 || f[1] != "8192" {
			t.Fatalf("line %q", line)
		}
		counts[f[0]]++
	}
	want := map[string]int{}
	for _, bin := range p.Hist {
		want[strconv.FormatFloat(bin.Low, 'f', -1, 64)] = bin.Count
	}
	if len(want) != 2 || !maps.Equal(counts, want) {
		t.Errorf("samples file values %v, histogram rows %v: one clock step must be one value", counts, want)
	}
}

package mem

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Histogram bins samples the way the seed's one-liner shows them: one row per value, sorted
// by value. Values are rounded to integers; when there are more than maxRows distinct values
// the bins widen (1, 2, 5, 10, 20, 50...) until the 1st..99th percentile fits in maxRows, and
// the samples above the last row are gathered into one overflow row.
//
// step is the timer's resolution in the samples' unit: a clock that advances in steps of
// more than 1.5 (the Zen 3 VM's TSC: 10 ns = 24.5 ticks, 31.6 cycles) gives values k*step
// give or take a tick, so values are first snapped to the nearest multiple of step and the
// bins are whole steps: one step of the clock is one row, never two (94.6 and 95.8 cycles
// are both 3 steps, 94.9). With step <= 1.5 values are rounded to integers.
func Histogram(samples []float64, maxRows int, step float64) []Bin {
	if len(samples) == 0 || maxRows < 2 {
		return nil
	}
	unit := 1.0
	if coarse(step) {
		unit = step
	}
	xs := slices.Clone(samples)
	for i, x := range xs {
		xs[i] = math.Round(x / unit)
	}
	bins := histogram(xs, maxRows)
	if unit != 1 {
		for i := range bins {
			bins[i].Low = round1(bins[i].Low * unit)
			bins[i].Width = round1(bins[i].Width * unit)
		}
	}
	return bins
}

// coarse says whether a clock of this step (in the samples' unit) reads one step as
// different values (24 or 25 ticks for one 10 ns step), which Histogram and the samples
// file then snap to whole steps.
func coarse(step float64) bool { return step > 1.5 }

// Snap is a sample as Histogram and the samples file show it: the nearest whole step of a
// coarse clock, else the sample to 0.1.
func Snap(x, step float64) float64 {
	if coarse(step) {
		return round1(math.Round(x/step) * step)
	}
	return round1(x)
}

// histogram bins integer values.
func histogram(xs []float64, maxRows int) []Bin {
	slices.Sort(xs)
	distinct := 1
	for i := 1; i < len(xs); i++ {
		if xs[i] != xs[i-1] {
			distinct++
		}
	}
	if distinct <= maxRows {
		// Few values: one row each, as the seed's one-liner prints them.
		var bins []Bin
		for _, x := range xs {
			if n := len(bins); n > 0 && bins[n-1].Low == x {
				bins[n-1].Count++
				continue
			}
			bins = append(bins, Bin{Low: x, Width: 1, Count: 1})
		}
		return bins
	}
	lo, hi := quantile(xs, 0.01), quantile(xs, 0.99)
	width := 1.0
	for _, w := range niceWidths() {
		width = w
		if math.Floor(hi/w)-math.Floor(lo/w)+1 <= float64(maxRows-1) {
			break
		}
	}
	start := math.Floor(xs[0]/width) * width
	limit := (math.Floor(hi/width) + 1) * width // first value of the overflow row
	var bins []Bin
	over := 0
	for _, x := range xs {
		if x >= limit {
			over++
			continue
		}
		low := start + math.Floor((x-start)/width)*width
		if n := len(bins); n > 0 && bins[n-1].Low == low {
			bins[n-1].Count++
			continue
		}
		bins = append(bins, Bin{Low: low, Width: width, Count: 1})
	}
	// Rows below the 1st percentile are kept (the seed's 9-cycle hits in a DRAM list); when
	// that makes too many rows, merge the low tail into the first row shown.
	for len(bins) > maxRows-1 {
		bins[1].Count += bins[0].Count
		bins = bins[1:]
	}
	if over > 0 {
		bins = append(bins, Bin{Low: limit, Width: 0, Count: over, Over: true})
	}
	return bins
}

func niceWidths() []float64 {
	var ws []float64
	for m := 1.0; m <= 1e9; m *= 10 {
		ws = append(ws, m, 2*m, 5*m)
	}
	return ws
}

// WriteHistogram prints bins as the seed's one-liner did: the value, the count, and a bar of
// '#' scaled so the largest count is 60 wide (any non-zero count gets at least one '#').
// A bin wider than one step of the clock (1, or step when the samples were snapped to
// steps; see Histogram) shows its range, low to its last value; the overflow row ">=low".
func WriteHistogram(w io.Writer, bins []Bin, indent string, step float64) {
	unit := 1.0
	if step > 1.5 {
		unit = round1(step)
	}
	maxc := 0
	for _, b := range bins {
		maxc = max(maxc, b.Count)
	}
	for _, b := range bins {
		label := fmt.Sprintf("%g", b.Low)
		switch {
		case b.Over:
			label = fmt.Sprintf(">=%g", b.Low)
		case b.Width > unit*1.01:
			// Bins of whole steps end a step below the next; older files' bins (integer
			// widths over stepped values) one below.
			last := b.Width - 1
			if k := math.Round(b.Width / unit); math.Abs(b.Width-k*unit) < 0.01*b.Width {
				last = b.Width - unit
			}
			label = fmt.Sprintf("%g-%g", b.Low, round1(b.Low+last))
		}
		n := int(math.Ceil(60 * float64(b.Count) / float64(maxc)))
		fmt.Fprintf(w, "%s%11s %5d %s\n", indent, label, b.Count, strings.Repeat("#", n))
	}
}

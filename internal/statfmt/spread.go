package statfmt

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// runTable writes perf stat --table's "Table of individual measurements": each run's elapsed
// time, its difference from the mean, and a bar of one '#' per 5% of difference (plus one),
// then "# Final result:" before the footer. Nothing without kept runs.
func runTable(b *bytes.Buffer, r *result.Stat) {
	if len(r.Runs) < 2 {
		return
	}
	p := perfPrecision(r.ElapsedStd / math.Sqrt(float64(len(r.Runs))))
	indent := strings.Repeat(" ", len(fmt.Sprintf(" %17.*f", p, r.ElapsedSec))-len(fmt.Sprintf("%.*f", p, r.ElapsedSec)))
	b.WriteString("\n" + indent + "# Table of individual measurements:\n")
	for _, run := range r.Runs {
		d := run.ElapsedSec - r.ElapsedSec
		bars := 1
		if run.ElapsedSec != 0 {
			bars += int(math.Abs(100*d/run.ElapsedSec)) / 5
		}
		fmt.Fprintf(b, " %17.*f (%+.*f) %s\n", p, run.ElapsedSec, p, d, strings.Repeat("#", bars))
	}
	b.WriteString("\n" + indent + "# Final result:")
}

// Spread writes how every count and metric of r varied over its runs (nothing for one run):
// the block `pmc stat --table` ends with, which the report file includes too.
func Spread(b *bytes.Buffer, r *result.Stat) { spreadTable(b, r) }

// spreadTable writes how every count and metric varied over the runs: mean, sample standard
// deviation (and as % of the mean), min and max. perf prints only the standard error of the
// mean ("+- x%"); seed 002 reports the standard deviation. A metric's mean column is its
// value, the one every output prints: the metric of the mean counts (CPUs utilized = mean
// task-clock / mean wall time, perf's definition), not the mean of the runs' own values, which
// weighs a short run like a long one; stddev, min and max are those of the runs' own values.
func spreadTable(b *bytes.Buffer, r *result.Stat) {
	n := repeats(r)
	if n < 2 {
		return
	}
	fmt.Fprintf(b, " Spread over %d runs (sample standard deviation):\n\n", n)
	fmt.Fprintf(b, " %18s %18s %9s %18s %18s  %s\n", "mean", "stddev", "", "min", "max", "event / metric")
	row := func(mean, sd, lo, hi float64, unit, name string, metric bool) {
		pct := ""
		if mean != 0 {
			pct = fmt.Sprintf("(%.2f%%)", 100*sd/math.Abs(mean))
		}
		f := func(v float64) string { return formatCount(v, unit) }
		if metric {
			f = func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
		}
		fmt.Fprintf(b, " %18s %18s %9s %18s %18s  %s\n", f(mean), f(sd), pct, f(lo), f(hi), strings.TrimSpace(unit+" "+name))
	}
	for _, s := range r.Summary {
		if s.Status != result.Counted {
			continue
		}
		scale := 1.0
		if s.UnitScale != 0 {
			scale = s.UnitScale
		}
		row(s.Mean*scale, s.Stddev*scale, s.Min*scale, s.Max*scale, s.Unit, s.Event, false)
	}
	metrics := false
	for _, m := range r.Metrics {
		if m.Spread == nil {
			continue
		}
		name := m.Name
		if m.Unit != "" {
			name += " (" + m.Unit + ")"
		}
		row(m.Value, m.Spread.Stddev, m.Spread.Min, m.Spread.Max, "", name, true)
		metrics = true
	}
	if metrics {
		b.WriteString("\n metrics: mean = the metric of the mean counts, as above (CPUs utilized = mean task-clock /\n" +
			" mean wall time); stddev, min and max over each run's own value\n")
	}
	b.WriteString("\n")
}

package statfmt

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/result"
)

// TextOptions tunes the human-readable output.
type TextOptions struct {
	// Thousands groups the digits of counts ("1,234,567"), as perf does when the locale
	// asks for it. 0 prints no grouping, which is what perf prints under the C locale. See
	// ThousandsFromEnv.
	Thousands rune
	// Metrics are printed in addition to Result.Metrics. TextInterval prints only these
	// (the Result's metrics describe the whole run, and result.Interval carries none).
	Metrics []result.Metric
	// Table adds, with -r N, perf's table of every run's elapsed time (--table) and the
	// spread (standard deviation, min, max) of every count and metric.
	Table bool
	// NoMerge (--no-merge) prints every counter of an event, where the text otherwise
	// merges the copies of one event (result.Merged).
	NoMerge bool
}

// Column widths of perf stat's text layout.
const (
	valueWidth     = 18 // right-aligned count or "<not supported>"
	unitWidth      = 4  // "msec" or blank
	eventWidth     = 32 // event name on a row with a value
	eventWidthNone = 25 // event name on a "<not counted>" row
	metricWidth    = 35 // " # " + number + unit, padded
	// metricIndent is where the metric column starts on a continuation line (a second
	// metric for the same event): under the first one.
	metricIndent = valueWidth + 1 + unitWidth + 1 + eventWidth
	// headerEvery is how many intervals perf prints between two column headers.
	headerEvery = 25
)

// Text writes r the way perf stat prints its counts: the header, one row per event, and the
// elapsed/user/sys footer. A Result with Intervals prints every interval instead, with the
// column header every 25 intervals and no footer, as perf stat -I does.
func Text(w io.Writer, r *result.Stat, opt TextOptions) error {
	if len(r.Intervals) > 0 {
		var b bytes.Buffer
		for i, iv := range r.Intervals {
			textInterval(&b, r, iv, i%headerEvery == 0, opt)
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	var b bytes.Buffer
	b.WriteString("\n " + Title(r) + ":\n\n")
	rows := summaryRows(r, !opt.NoMerge)
	orphans := attachMetrics(rows, append(append([]result.Metric(nil), r.Metrics...), opt.Metrics...))
	repeated := repeats(r) > 1
	for _, row := range rows {
		textRow(&b, "", row, repeated, opt)
	}
	for _, m := range orphans {
		textOrphan(&b, "", cpuColumn(r, m.CPU), m)
	}
	notCountedHint(&b, rows)
	if opt.Table {
		runTable(&b, r)
	}
	textFooter(&b, r)
	if opt.Table {
		spreadTable(&b, r)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// TextInterval writes one -I interval as perf stat does: each row starts with the time
// since the start; first adds the column header line (perf repeats it every 25 intervals:
// pass first = n%25 == 0). The interval's metrics come from opt.Metrics, e.g. from
// metrics.Set.ComputeCounts(iv.Counts, intervalSeconds, ...); result.Interval holds none.
func TextInterval(w io.Writer, r *result.Stat, iv result.Interval, first bool, opt ...TextOptions) error {
	var o TextOptions
	if len(opt) > 0 {
		o = opt[0]
	}
	var b bytes.Buffer
	textInterval(&b, r, iv, first, o)
	_, err := w.Write(b.Bytes())
	return err
}

func textInterval(b *bytes.Buffer, r *result.Stat, iv result.Interval, first bool, opt TextOptions) {
	if first {
		if perCPU(iv.Counts) {
			b.WriteString("#           time CPU                    counts unit events\n")
		} else {
			b.WriteString("#           time             counts unit events\n")
		}
	}
	prefix := fmt.Sprintf("%16.9f ", iv.TimeSec)
	rows := countRows(r, iv.Counts)
	orphans := attachMetrics(rows, opt.Metrics)
	for _, row := range rows {
		textRow(b, prefix, row, false, opt)
	}
	for _, m := range orphans {
		textOrphan(b, prefix, cpuColumn(r, m.CPU), m)
	}
}

// Title is perf's "Performance counter stats for ..." line without the colon.
func Title(r *result.Stat) string {
	var target string
	switch r.Mode {
	case "attach":
		pids := make([]string, len(r.PIDs))
		for i, p := range r.PIDs {
			pids[i] = strconv.Itoa(p)
		}
		target = "process id '" + strings.Join(pids, ",") + "'"
		if r.Threads {
			target = "thread id '" + strings.Join(pids, ",") + "'"
		}
	case "system":
		if len(r.CPUs) > 0 && !r.AllCPUs {
			target = "'CPU(s) " + pmu.FormatCPUList(r.CPUs) + "'"
		} else {
			target = "'system wide'"
		}
		if r.Cgroup != "" {
			target += " in cgroup '" + r.Cgroup + "'"
		}
	default:
		target = "'" + strings.Join(r.Command, " ") + "'"
	}
	title := "Performance counter stats for " + target
	if r.Simulated() {
		title = "SIMULATED counts (" + r.Simulator() + ", not hardware counters) for " + target
	}
	switch n := repeats(r); {
	case r.Interrupted && r.Repeat > n:
		title += fmt.Sprintf(" (%d of %d runs: interrupted)", n, r.Repeat)
	case n > 1:
		title += fmt.Sprintf(" (%d runs)", n)
	}
	return title
}

// repeats is the number of runs the numbers are over (the runs asked for when a result
// records none).
func repeats(r *result.Stat) int {
	if n := r.RunsDone(); n > 0 {
		return n
	}
	return r.Repeat
}

func perCPU(counts []result.Count) bool {
	for _, c := range counts {
		if c.CPU >= 0 {
			return true
		}
	}
	return false
}

// cpuColumn is perf's -A column: "CPU0" padded to 10 characters and a space; with
// --per-socket/--per-core the id and the number of CPUs summed ("S0-D0-C1    2 "); "" for
// counts over all CPUs.
func cpuColumn(r *result.Stat, cpu int) string {
	if cpu < 0 {
		return ""
	}
	label, n := r.CPULabel(cpu)
	if r.Aggregation != nil {
		return fmt.Sprintf("%-12s %4d ", label, n)
	}
	return fmt.Sprintf("%-10s ", label)
}

// rowLabel is the first column of a row: the thread with --per-thread (perf's "comm-tid",
// right-aligned), else the CPU column.
func rowLabel(r *result.Stat, cpu int, thread string) string {
	if thread != "" {
		return fmt.Sprintf("%20s ", thread)
	}
	return cpuColumn(r, cpu)
}

// textRow writes one event: value, unit, name, metric column(s), variation, running share.
func textRow(b *bytes.Buffer, prefix string, r row, repeated bool, opt TextOptions) {
	prefix += r.label
	value := r.marker()
	if r.hasValue() {
		value = GroupDigits(formatCount(r.value, r.unit), opt.Thousands)
	}
	fmt.Fprintf(b, "%s%*s %-*s ", prefix, valueWidth, value, unitWidth, r.unit)
	event := r.event
	if r.name != "" {
		event += " (" + r.name + ")"
	}
	var notes []string // what makes the metrics doubtful, on lines of their own below
	switch {
	case len(r.metrics) > 0:
		fmt.Fprintf(b, "%-*s", eventWidth, event)
		for i, m := range r.metrics {
			if i > 0 {
				b.WriteString("\n" + prefix + strings.Repeat(" ", metricIndent))
			}
			col, n := metricColumn(m)
			b.WriteString(col)
			notes = append(notes, n...)
		}
	case r.hasValue():
		fmt.Fprintf(b, "%-*s%*s", eventWidth, event, metricWidth, "")
	default:
		fmt.Fprintf(b, "%-*s%*s", eventWidthNone, event, metricWidth, "")
	}
	if repeated && r.varPct != 0 {
		fmt.Fprintf(b, "  ( +-%6.2f%% )", r.varPct)
	}
	if bt := BoundText(r.bound); bt != "" && r.hasValue() {
		b.WriteString("  " + bt)
	}
	if r.multiplexed() {
		fmt.Fprintf(b, "  (%.2f%%)", r.pct())
	}
	if r.simulated && r.hasValue() {
		b.WriteString("  (SIMULATED)")
	}
	if why := notCountedWhy(r.reason); r.status == result.NotCounted && why != "" {
		b.WriteString("  " + why)
	}
	b.WriteByte('\n')
	writeNotes(b, prefix, notes)
}

// writeNotes puts a row's metric notes on lines of their own under the metric column, so
// that a long warning never pushes the running-share column out of place.
func writeNotes(b *bytes.Buffer, prefix string, notes []string) {
	for _, n := range notes {
		b.WriteString(prefix + strings.Repeat(" ", metricIndent) + " #   " + n + "\n")
	}
}

// textOrphan prints a metric whose event has no row, on a line of its own.
func textOrphan(b *bytes.Buffer, prefix, cpuCol string, m result.Metric) {
	col, notes := metricColumn(m)
	b.WriteString(prefix + cpuCol + strings.Repeat(" ", metricIndent) + strings.TrimRight(col, " ") + "\n")
	writeNotes(b, prefix+cpuCol, notes)
}

// metricColumn is " #    1.23  insn per cycle" padded to perf's metric width, and what
// makes the number doubtful, one note each: "(not measured together)", "!! implausible...".
func metricColumn(m result.Metric) (string, []string) {
	t := describeMetric(m)
	num := t.num
	if bt := BoundText(m.Bound); bt != "" && m.Valid {
		num += " " + bt
	}
	s := fmt.Sprintf(" # %s %s", num, t.unit)
	var notes []string
	for _, n := range metricNotes(m, true) {
		switch n {
		case "undefined":
			// already in the number's place
		case notTogether:
			notes = append(notes, "("+n+")")
		default:
			notes = append(notes, "!! "+n)
		}
	}
	if len(s) < metricWidth {
		s += strings.Repeat(" ", metricWidth-len(s))
	}
	return s, notes
}

// textFooter writes the elapsed time (mean +- standard error of the mean with -r) and, for
// a single launched workload, its user and system CPU time, as perf does.
func textFooter(b *bytes.Buffer, r *result.Stat) {
	b.WriteByte('\n')
	if n := repeats(r); n > 1 {
		sem := r.ElapsedStd / math.Sqrt(float64(n))
		p := perfPrecision(sem)
		fmt.Fprintf(b, " %17.*f +- %.*f seconds time elapsed", p, r.ElapsedSec, p, sem)
		if r.ElapsedSec != 0 && sem != 0 {
			fmt.Fprintf(b, "  ( +-%6.2f%% )", 100*sem/r.ElapsedSec)
		}
	} else {
		fmt.Fprintf(b, " %17.9f seconds time elapsed", r.ElapsedSec)
		if r.Mode == "launch" || r.Mode == "" { // rusage exists for a launched workload only
			fmt.Fprintf(b, "\n\n %17.9f seconds user\n %17.9f seconds sys\n", r.UserSec, r.SysSec)
		}
	}
	b.WriteString("\n\n")
}

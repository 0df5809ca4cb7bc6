package statfmt

import (
	"fmt"
	"strconv"

	"github.com/pmc-tools/pmc/internal/result"
)

// row is one printed event line, built from a Summary (the end of a run) or a Count (an
// interval), so text and CSV format the same numbers.
type row struct {
	simulated bool // a simulator's count (pmc stat --sim): labelled SIMULATED
	event     string
	unit      string
	scale     float64 // converts counts to unit (result.ToUnit)
	group     int
	cpu       int
	label     string // the per-CPU column: "CPU3", or "S0   2" with --per-socket ("" without -A)
	thread    string // --per-thread: "comm-tid"
	status    result.Status
	value     float64       // what the value column shows: scaled or raw (--no-scale), in unit
	raw       float64       // mean raw count over runs
	scaled    float64       // mean scaled count over runs (ns for clocks)
	enabled   uint64        // total over runs
	running   uint64        // total over runs
	runTime   uint64        // perf's running-time column: time_running per run
	varPct    float64       // perf's "+- x%", 0 without repeats
	bound     *result.Bound // how far a multiplexed value may be off; nil when exact
	metrics   []result.Metric

	reason result.Reason // why a not-counted row of the final table has no value
	name   string        // a raw event's name in the CPU's table ("L1D_CACHE_REFILL"), for people
}

// hasValue reports whether the row carries a measured value.
func (r row) hasValue() bool { return r.status == result.Counted }

// marker is the value-column text of a row without a value.
func (r row) marker() string {
	if r.status == result.NotSupported {
		return notSupported
	}
	return notCounted
}

// BoundText is how a bound reads beside its value: "±2.10%", "±?" when the value was
// multiplexed but cannot be bounded, "" when it needs none.
func BoundText(b *result.Bound) string {
	switch {
	case b == nil:
		return ""
	case !b.Known():
		return "±?"
	}
	return fmt.Sprintf("±%.2f%%", b.Pct)
}

// boundField is the --csv bound column: the percentage, "?" when unknown, "" when none.
func boundField(b *result.Bound) string {
	switch {
	case b == nil:
		return ""
	case !b.Known():
		return "?"
	}
	return strconv.FormatFloat(b.Pct, 'f', 2, 64)
}

// pct is perf's pct-running column.
func (r row) pct() float64 { return pctRunning(r.enabled, r.running) }

// multiplexed reports whether perf would print the "(66.67%)" running share.
func (r row) multiplexed() bool { return r.running != r.enabled }

// summaryRows builds the rows of the final report, each event once when merged (the text:
// result.Merged). Without a Summary (a caller that did not aggregate) the last run's counts
// are shown as they are.
func summaryRows(res *result.Stat, merged bool) []row {
	runs := res.RunsDone()
	if runs == 0 {
		runs = 1
	}
	if len(res.Summary) == 0 && len(res.Runs) > 0 {
		return countRows(res, res.Runs[len(res.Runs)-1].Counts)
	}
	summary := res.Summary
	if merged {
		summary = result.Merged(summary)
	}
	rows := make([]row, 0, len(summary))
	for _, s := range summary {
		r := row{event: s.Event, unit: s.Unit, scale: s.UnitScale, group: s.Group, cpu: s.CPU, label: rowLabel(res, s.CPU, s.Thread), thread: s.Thread, status: s.Status,
			raw: s.RawMean, scaled: s.Mean, enabled: s.Enabled, running: s.Running,
			runTime: s.Running / uint64(runs), varPct: s.VarPct, reason: s.Reason, name: rawName(s.Encoding), bound: s.Bound}
		r.value = r.scaled
		if !res.Scaled {
			r.value = r.raw
		}
		r.value = result.ToUnit(r.value, r.unit, r.scale)
		r.simulated = res.Simulated()
		rows = append(rows, r)
	}
	return rows
}

// countRows builds rows from one set of counts (an interval, or a single run).
func countRows(res *result.Stat, counts []result.Count) []row {
	rows := make([]row, 0, len(counts))
	for _, c := range counts {
		r := row{event: c.Event, unit: c.Unit, scale: c.UnitScale, group: c.Group, cpu: c.CPU, label: rowLabel(res, c.CPU, c.Thread), thread: c.Thread, status: c.Status,
			raw: float64(c.Raw), scaled: c.Scaled, enabled: c.Enabled, running: c.Running,
			runTime: c.Running, name: rawName(c.Encoding), bound: c.Bound}
		r.value = r.scaled
		if !res.Scaled {
			r.value = r.raw
		}
		r.value = result.ToUnit(r.value, r.unit, r.scale)
		r.simulated = res.Simulated()
		rows = append(rows, r)
	}
	return rows
}

// attachMetrics gives each row the metrics printed beside it (same event name and CPU; the
// first such row when an event appears twice) and returns the metrics no row claimed.
func attachMetrics(rows []row, metrics []result.Metric) []result.Metric {
	var orphans []result.Metric
	for _, m := range metrics {
		placed := false
		for i := range rows {
			if rows[i].event == m.Event && rows[i].cpu == m.CPU {
				rows[i].metrics = append(rows[i].metrics, m)
				placed = true
				break
			}
		}
		if !placed {
			orphans = append(orphans, m)
		}
	}
	return orphans
}

package compare

import (
	"fmt"
	"math"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statistics"
)

// Build fills c.Rows and c.Differences from c.Commands (and the schema, method and default
// confidence level when they are unset).
func Build(c *Comparison) {
	c.Schema, c.Method = Schema, Method
	if c.Confidence == 0 {
		c.Confidence = 0.95
	}
	c.Rows = nil
	for _, region := range regions(c.Commands) {
		cmds := c.Commands
		if region != "" {
			cmds = ofRegion(cmds, region)
		}
		n := len(c.Rows)
		c.Rows = append(c.Rows, timeRows(cmds)...)
		c.Rows = append(c.Rows, eventRows(cmds)...)
		c.Rows = append(c.Rows, metricRows(cmds)...)
		for i := n; i < len(c.Rows); i++ {
			c.Rows[i].Region = region
		}
	}
	c.Simulated = false
	for ci := range c.Commands {
		if !c.Commands[ci].Simulated() {
			continue
		}
		c.Simulated = true
		for ri := range c.Rows {
			cell := &c.Rows[ri].Cells[ci]
			if c.Rows[ri].Kind == KindTime {
				cell.Warning = "of the simulator's run (cachegrind runs the program 4-57x slower)"
			} else {
				cell.Simulated = true
			}
		}
	}
	for i := range c.Rows {
		deltas(&c.Rows[i], c.Confidence)
	}
	c.Differences = differences(c.Commands)
}

// regions are the include/pmc.h regions the runs are, in the order they first appear: the
// comparison is then region by region. One "" when the runs are runs.
func regions(cmds []Command) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cmds {
		for _, r := range c.Runs {
			if !seen[r.Region] {
				seen[r.Region] = true
				out = append(out, r.Region)
			}
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// ofRegion are the commands with only the runs of one region.
func ofRegion(cmds []Command, region string) []Command {
	out := make([]Command, len(cmds))
	for i, c := range cmds {
		c.Runs = nil
		for _, r := range cmds[i].Runs {
			if r.Region == region {
				c.Runs = append(c.Runs, r)
			}
		}
		out[i] = c
	}
	return out
}

// good are the runs whose command succeeded.
func good(cmd Command) []Run {
	var out []Run
	for _, r := range cmd.Runs {
		if r.Counted() {
			out = append(out, r)
		}
	}
	return out
}

// cellOf describes the values of the runs idx.
func cellOf(idx []int, vals []float64) Cell {
	c := Cell{Status: string(result.Counted), Runs: idx, Values: vals, Stats: statistics.Describe(vals)}
	for i, o := range c.Stats.Outliers {
		c.Stats.Outliers[i] = idx[o] // run indices, not positions
	}
	if len(vals) == 0 {
		c.Status = string(result.NotCounted)
		c.Error = "no successful run"
	}
	return c
}

func timeRows(cmds []Command) []Row {
	type q struct {
		name, unit string
		get        func(Run) float64
		recorded   bool // by include/pmc.h too
	}
	qs := []q{
		{"wall time", "s", func(r Run) float64 { return r.ElapsedSec }, true},
		{"user time", "s", func(r Run) float64 { return r.UserSec }, false},
		{"sys time", "s", func(r Run) float64 { return r.SysSec }, false},
	}
	rss := false
	for _, c := range cmds {
		for _, r := range c.Runs {
			rss = rss || r.MaxRSSKB > 0
		}
	}
	if rss {
		qs = append(qs, q{"peak RSS", "KiB", func(r Run) float64 { return float64(r.MaxRSSKB) }, false})
	}
	var rows []Row
	for _, q := range qs {
		row := Row{Name: q.name, Kind: KindTime, Unit: q.unit}
		for _, c := range cmds {
			if c.SelfMeasured && !q.recorded {
				row.Cells = append(row.Cells, Cell{Status: NotRecorded, Error: "include/pmc.h does not record it"})
				continue
			}
			var idx []int
			var vals []float64
			unknown := false
			for _, r := range good(c) {
				idx, vals = append(idx, r.Index), append(vals, q.get(r))
				unknown = unknown || q.name == "peak RSS" && r.MaxRSSKB <= 0
			}
			if unknown {
				// A peak below the launcher's own is not known (max_rss_below_kb): no value,
				// never a 0 beside another command's real peak.
				row.Cells = append(row.Cells, Cell{Status: NotMeasured, Error: "peak below pmc's launcher's own: pmc cannot tell it"})
				continue
			}
			row.Cells = append(row.Cells, cellOf(idx, vals))
		}
		rows = append(rows, row)
	}
	return rows
}

// runSummary is one run's counts with each event once (copies in several groups merged as
// pmc stat's text merges them), aggregated over CPUs.
func runSummary(r Run) []result.Summary {
	st := &result.Stat{Runs: []result.Run{{Counts: r.Counts}}}
	result.Summarize(st)
	return result.Merged(st.Summary)
}

// eventRows has a row per event any command counted, in the order they first appear.
func eventRows(cmds []Command) []Row {
	var order []string
	seen := map[string]bool{}
	per := make([][]map[string]result.Summary, len(cmds)) // command -> good run -> event
	for ci, c := range cmds {
		for _, r := range c.Runs {
			m := map[string]result.Summary{}
			for _, s := range runSummary(r) {
				if s.CPU != -1 {
					continue
				}
				m[s.Event] = s
				if !seen[s.Event] {
					seen[s.Event] = true
					order = append(order, s.Event)
				}
			}
			per[ci] = append(per[ci], m)
		}
	}
	var rows []Row
	for _, ev := range order {
		row := Row{Name: ev, Kind: KindEvent}
		any := false
		for ci, c := range cmds {
			var idx []int
			var vals []float64
			var enabled, running uint64
			var missing result.Summary
			for ri, r := range c.Runs {
				s, ok := per[ci][ri][ev]
				if !ok || !r.Counted() {
					continue
				}
				row.Unit = s.Unit
				if s.Status != result.Counted {
					if missing.Status == "" {
						missing = s
					}
					continue
				}
				enabled, running = enabled+s.Enabled, running+s.Running
				idx = append(idx, r.Index)
				vals = append(vals, result.ToUnit(s.Mean, s.Unit, s.UnitScale))
			}
			cell := cellOf(idx, vals)
			if len(vals) == 0 && missing.Status != "" {
				cell.Status, cell.Error = string(missing.Status), missing.Error
			}
			if enabled > 0 {
				cell.RunningPct = 100 * float64(running) / float64(enabled)
			}
			any = any || len(vals) > 0
			row.Cells = append(row.Cells, cell)
		}
		if any {
			rows = append(rows, row)
		}
	}
	return rows
}

// metricRows has a row per metric with a value in any command.
func metricRows(cmds []Command) []Row {
	var order []string
	seen := map[string]bool{}
	for _, c := range cmds {
		for _, r := range good(c) {
			for _, m := range r.Metrics {
				if m.CPU == -1 && !seen[m.Name] {
					seen[m.Name] = true
					order = append(order, m.Name)
				}
			}
		}
	}
	var rows []Row
	for _, name := range order {
		row := Row{Name: name, Kind: KindMetric}
		any := false
		for _, c := range cmds {
			var idx []int
			var vals []float64
			together, warning, seenOne := true, "", false
			for _, r := range good(c) {
				for _, m := range r.Metrics {
					if m.Name != name || m.CPU != -1 {
						continue
					}
					seenOne = true
					row.Unit = m.Unit
					together = together && m.Together
					if warning == "" {
						warning = m.Warning
					}
					if m.Valid && !math.IsNaN(m.Value) && !math.IsInf(m.Value, 0) {
						idx, vals = append(idx, r.Index), append(vals, m.Value)
					}
				}
			}
			cell := cellOf(idx, vals)
			if seenOne {
				cell.Together = &together
				cell.Warning = warning
			}
			if len(vals) == 0 {
				cell.Error = "not computed: an operand was not counted"
			}
			any = any || len(vals) > 0
			row.Cells = append(row.Cells, cell)
		}
		if any {
			rows = append(rows, row)
		}
	}
	return rows
}

// deltas compares each cell after the first with the first.
func deltas(row *Row, level float64) {
	if len(row.Cells) == 0 {
		return
	}
	base := row.Cells[0]
	for i := 1; i < len(row.Cells); i++ {
		c := &row.Cells[i]
		if base.Stats.N == 0 || c.Stats.N == 0 || base.Stats.Mean == 0 {
			continue
		}
		m0 := base.Stats.Mean
		d := &Delta{Pct: 100 * (c.Stats.Mean - m0) / m0, Ratio: c.Stats.Mean / m0}
		w, ok := statistics.WelchTest(base.Values, c.Values, level)
		f, fok := statistics.FiellerRatio(base.Values, c.Values, level, row.nonNegative())
		if ok && fok {
			d.Tested, d.P, d.DF = true, w.P, f.DF
			if f.Bounded {
				lo, hi := 100*(f.Low-1), 100*(f.High-1)
				d.CILowPct, d.CIHighPct, d.Significant = &lo, &hi, f.Significant
			} else {
				d.CINote = fmt.Sprintf("too few runs for their spread: %d and %d runs (±%.0f%% and ±%.0f%%) cannot bound the ratio; run more (-r)",
					base.Stats.N, c.Stats.N, 100*base.Stats.Stddev/math.Abs(m0), 100*c.Stats.Stddev/math.Abs(c.Stats.Mean))
			}
		}
		c.Delta = d
	}
}

// nonNegative says whether the quantity cannot be negative: times and counts never are, a
// metric is taken to be when none of its values is.
func (r *Row) nonNegative() bool {
	if r.Kind != KindMetric {
		return true
	}
	for _, c := range r.Cells {
		for _, v := range c.Values {
			if v < 0 {
				return false
			}
		}
	}
	return true
}

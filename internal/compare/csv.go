package compare

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// csvHeader names the columns of CSV: one line per quantity and command, numbers unformatted.
var csvHeader = []string{"quantity", "kind", "unit", "label", "command", "status", "runs", "mean", "stddev", "min", "median", "max",
	"running_pct", "change_pct", "ci_low_pct", "ci_high_pct", "ratio", "p", "significant", "measured_together", "outlier_runs", "notes",
	"backend", "simulation", "region"}

// CSV writes the comparison as RFC 4180 CSV with a header row.
func CSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, r := range c.Rows {
		for ci, cell := range r.Cells {
			cmd := c.Commands[ci]
			what := strings.Join(cmd.Command, " ")
			if cmd.File != "" {
				what = cmd.File
			}
			rec := []string{r.Name, r.Kind, r.Unit, cmd.Label, what, cell.Status, strconv.Itoa(cell.Stats.N)}
			if cell.Stats.N > 0 {
				s := cell.Stats
				rec = append(rec, num(s.Mean), num(s.Stddev), num(s.Min), num(s.Median), num(s.Max))
			} else {
				rec = append(rec, "", "", "", "", "")
			}
			rec = append(rec, "")
			if cell.RunningPct > 0 {
				rec[len(rec)-1] = num(cell.RunningPct)
			}
			if d := cell.Delta; d != nil {
				rec = append(rec, num(d.Pct))
				if lo, hi, ok := d.Interval(); ok {
					rec = append(rec, num(lo), num(hi), num(d.Ratio), num(d.P), strconv.FormatBool(d.Significant))
				} else if d.Tested {
					rec = append(rec, "", "", num(d.Ratio), num(d.P), "")
				} else {
					rec = append(rec, "", "", num(d.Ratio), "", "")
				}
			} else {
				rec = append(rec, "", "", "", "", "", "")
			}
			together := ""
			if cell.Together != nil {
				together = strconv.FormatBool(*cell.Together)
			}
			var outliers []string
			for _, o := range cell.Stats.Outliers {
				outliers = append(outliers, strconv.Itoa(o))
			}
			notes := cell.Flags()
			if cell.Delta != nil && cell.Delta.CINote != "" {
				notes = append(notes, cell.Delta.CINote)
			}
			if cell.Error != "" {
				notes = append(notes, cell.Error)
			}
			rec = append(rec, together, strings.Join(outliers, " "), strings.Join(notes, "; "), cmd.Backend, cmd.Simulation.String(), r.Region)
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

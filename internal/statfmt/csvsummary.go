package statfmt

import (
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/result"
)

// CSVSummary writes the whole run's counts after -I intervals, as perf stat -I --summary -x
// does: every record starts with "summary" in the time column (padded as perf pads the
// time), or, with label false (--no-csv-summary), with no time column at all.
func CSVSummary(w io.Writer, r *result.Stat, opt CSVOptions, label bool) error {
	c, err := newCSVWriter(r, opt)
	if err != nil {
		return err
	}
	t := ""
	if label {
		t = fmt.Sprintf("%16s", "summary")
	}
	rows := summaryRows(r, false)
	orphans := attachMetrics(rows, append(append([]result.Metric(nil), r.Metrics...), opt.Metrics...))
	c.rows(t, rows, orphans, repeats(r) > 1)
	_, err = w.Write(c.b.Bytes())
	return err
}

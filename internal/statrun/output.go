package statrun

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statfmt"
)

// statOutput writes `pmc stat` results in the chosen format, to stderr or to -o FILE
// (opened before counting with package outfile). Intervals are written as they are read:
// to stderr, or to the file itself (synced, so `tail -f` follows them), and none is kept
// in memory. Without -I the whole result is written at the end in one piece, so a regular
// file is replaced atomically and never left half-written.
type statOutput struct {
	e    *Env
	f    *Flags
	file *outfile.File // -o FILE; nil: stderr
	live io.Writer     // where intervals go as they come
	head *result.Stat  // what interval rows need to know before the run ends
	plan *MetricPlan
	n    int     // intervals written
	last float64 // time of the previous interval
}

// newStatOutput opens -o FILE at once, so that an output that cannot be written stops pmc
// before the workload runs. Text and perf-form CSV files start with perf's "# started on"
// line.
func newStatOutput(e *Env, f *Flags, req *stat.Request, plan *MetricPlan) (*statOutput, error) {
	o := &statOutput{e: e, f: f, plan: plan, head: &result.Stat{Schema: result.SchemaVersion,
		Command: req.Command, Mode: string(req.Mode), PIDs: req.PIDs, Threads: req.Threads, CPUs: req.CPUs,
		Scaled: !req.NoScale, Repeat: req.Repeat}}
	if f.Output == "" {
		o.live = e.Stderr
		return o, nil
	}
	mode := outfile.Replace
	switch {
	case f.Append:
		mode = outfile.Append
	case f.IntervalMS > 0:
		mode = outfile.Stream
	}
	file, err := outfile.Create(f.Output, mode)
	if err != nil {
		return nil, fmt.Errorf("-o: %w", err)
	}
	o.file, o.live = file, file
	if !f.JSON && !f.CSV && !f.Perf.JSON {
		if _, err := io.WriteString(file, statfmt.StartedLine(time.Now())); err != nil {
			file.Abort()
			return nil, fmt.Errorf("-o: %w", err)
		}
	}
	return o, nil
}

// machineStderr reports whether stderr carries machine-readable output (JSON or CSV without
// -o): then pmc's own hints stay out of it (JSON has them in "notes").
func (o *statOutput) machineStderr() bool {
	return o.file == nil && (o.f.JSON || o.f.Perf.JSON || o.f.CSV || o.f.Sep != "")
}

// keepRuns says whether every run must stay in memory: the JSON forms list them, --table
// prints them and the report gives the metrics' spread over them.
func (o *statOutput) keepRuns() bool { return o.f.JSON || o.f.Table || o.f.Metric.Report != "" }

// abort gives up the -o file (nothing was measured): an existing file is left as it was.
func (o *statOutput) abort() {
	if o.file != nil {
		o.file.Abort()
	}
}

func (o *statOutput) csvOptions() statfmt.CSVOptions {
	sep := ','
	if o.f.Sep != "" {
		sep = []rune(o.f.Sep)[0]
	}
	return statfmt.CSVOptions{Sep: sep, Header: o.f.CSV}
}

// interval writes one -I interval as soon as it is read: a text or CSV row block, or a JSON
// line (schema pmc.stat.interval/v1).
func (o *statOutput) Interval(iv result.Interval) {
	ms := o.plan.Interval(iv.Counts, iv.TimeSec-o.last)
	o.last = iv.TimeSec
	switch {
	case o.f.JSON:
		statfmt.JSONInterval(o.live, iv, ms)
	case o.f.Perf.JSON:
		statfmt.PerfJSONInterval(o.live, o.head, iv, ms)
	case o.f.CSV || o.f.Sep != "":
		opt := o.csvOptions()
		opt.Metrics = ms
		statfmt.CSVInterval(o.live, o.head, iv, o.n == 0, opt)
	default:
		// perf repeats the column header every 25 intervals
		opt := o.textOptions()
		opt.Metrics = ms
		statfmt.TextInterval(o.live, o.head, iv, o.n%25 == 0, opt)
	}
	if o.file != nil {
		o.file.Sync()
	}
	o.n++
}

// final writes the result and finishes the file. A JSON document is indented, or one line
// when it is appended to a file (JSON Lines) or ends an -I stream of JSON lines.
func (o *statOutput) final(res *result.Stat) error {
	w := o.live
	var err error
	switch {
	case o.f.Metric.Only:
		err = writeMetricOnly(w, o.f, res)
	case o.f.JSON && (o.f.Append || o.f.IntervalMS > 0):
		err = statfmt.JSONLine(w, res)
	case o.f.JSON:
		err = statfmt.JSON(w, res)
	case o.f.IntervalMS > 0 && !o.f.Perf.Summary:
		// interval mode printed its rows already; perf prints no summary table after them
	case o.f.Perf.JSON:
		err = statfmt.PerfJSON(w, res)
	case o.f.IntervalMS > 0 && (o.f.CSV || o.f.Sep != ""):
		err = statfmt.CSVSummary(w, res, o.csvOptions(), !o.f.Perf.NoCSVSummary)
	case o.f.CSV || o.f.Sep != "":
		err = statfmt.CSV(w, res, o.csvOptions())
	default:
		err = statfmt.Text(w, res, o.textOptions())
	}
	if err != nil {
		o.abort()
		return err
	}
	if o.file == nil {
		return nil
	}
	return o.file.Close()
}

// rescue prints the result to stderr as text when the output file could not be written at
// the end (a full disk, a device gone): the counts are not lost.
func (o *statOutput) rescue(res *result.Stat) {
	if o.file == nil || o.f.IntervalMS > 0 {
		return
	}
	fmt.Fprintf(o.e.Stderr, "pmc: the counts that could not be written to %s:\n", o.f.Output)
	statfmt.Text(o.e.Stderr, res, o.textOptions())
}

// textOptions groups digits with -B: the locale's separator where pmc knows it, else ','
// (perf groups only under a locale that has one; its users ask -B for the grouping).
func (o *statOutput) textOptions() statfmt.TextOptions {
	if !o.f.BigNum || o.f.Perf.NoBigNum {
		return statfmt.TextOptions{Table: o.f.Table, NoMerge: o.f.Perf.NoMerge}
	}
	sep := statfmt.ThousandsFromEnv(os.Getenv)
	if sep == 0 {
		sep = ','
	}
	return statfmt.TextOptions{Thousands: sep, Table: o.f.Table, NoMerge: o.f.Perf.NoMerge}
}

// writeMetricOnly prints only the metrics, in the format the flags chose.
func writeMetricOnly(w io.Writer, f *Flags, res *result.Stat) error {
	switch {
	case f.JSON:
		return statfmt.MetricOnlyJSON(w, res)
	case f.CSV || f.Sep != "":
		sep := ','
		if f.Sep != "" {
			sep = []rune(f.Sep)[0]
		}
		return statfmt.MetricOnlyCSV(w, res, sep, f.CSV)
	}
	return statfmt.MetricOnlyText(w, res)
}

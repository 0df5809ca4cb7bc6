package statfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pmc-tools/pmc/internal/result"
)

// ErrBadSeparator is returned for a CSV separator that cannot delimit fields.
var ErrBadSeparator = errors.New("report: csv separator cannot be a quote, CR, LF or invalid; pick another -x character")

// CSVOptions selects the CSV form.
type CSVOptions struct {
	// Sep separates fields (-x SEP); 0 means ','.
	Sep rune
	// Header selects the --csv form: a header row and the extended fixed column set
	// (docs/json-schema.md). Without it the columns are perf stat -x's.
	Header bool
	// Metrics are written in addition to Result.Metrics; CSVInterval writes only these.
	Metrics []result.Metric
	// Region, when set, is a first column on every record ("region" in the header): one
	// CSV of several include/pmc.h regions keeps which region a row belongs to. NoHeader
	// leaves the --csv header out (a second region's rows follow the first's).
	Region   *string
	NoHeader bool
}

// perfColumns are the --csv header names of the columns perf stat -x writes.
var perfColumns = []string{"value", "unit", "event", "variance", "running-time", "pct-running",
	"metric-value", "metric-unit"}

// extraColumns follow perfColumns in the --csv form.
var extraColumns = []string{"raw", "scaled", "enabled", "running", "group", "cpu", "status",
	"metric-name", "metric-note", "bound-pct", "metric-bound-pct"}

// CSV writes r as perf stat -x SEP does (or, with opt.Header, as pmc's --csv), one record
// per event and one per extra metric. A Result with Intervals writes every interval, each
// record starting with the time.
func CSV(w io.Writer, r *result.Stat, opt CSVOptions) error {
	c, err := newCSVWriter(r, opt)
	if err != nil {
		return err
	}
	if r.Simulated() {
		c.b.WriteString(SimulatedLine(r))
	}
	if len(r.Intervals) > 0 {
		for i, iv := range r.Intervals {
			c.interval(iv, i == 0)
		}
	} else {
		if opt.Header {
			c.header(false)
		}
		rows := summaryRows(r, false)
		orphans := attachMetrics(rows, append(append([]result.Metric(nil), r.Metrics...), opt.Metrics...))
		c.rows("", rows, orphans, repeats(r) > 1)
	}
	_, err = w.Write(c.b.Bytes())
	return err
}

// CSVInterval writes one -I interval; first writes the header row of the --csv form.
func CSVInterval(w io.Writer, r *result.Stat, iv result.Interval, first bool, opt CSVOptions) error {
	c, err := newCSVWriter(r, opt)
	if err != nil {
		return err
	}
	c.interval(iv, first)
	_, err = w.Write(c.b.Bytes())
	return err
}

type csvWriter struct {
	b   bytes.Buffer
	res *result.Stat
	opt CSVOptions
	// inHeader: the header record already has its "region" column
	inHeader bool
}

func newCSVWriter(r *result.Stat, opt CSVOptions) (*csvWriter, error) {
	if opt.Sep == 0 {
		opt.Sep = ','
	}
	if opt.Sep == '"' || opt.Sep == '\r' || opt.Sep == '\n' || !utf8.ValidRune(opt.Sep) || opt.Sep == utf8.RuneError {
		return nil, fmt.Errorf("%w (got %q)", ErrBadSeparator, opt.Sep)
	}
	return &csvWriter{res: r, opt: opt}, nil
}

func (c *csvWriter) interval(iv result.Interval, first bool) {
	if first && c.opt.Header {
		c.header(true)
	}
	// perf pads the time to 16 characters; the --csv form writes the bare number.
	t := fmt.Sprintf("%16.9f", iv.TimeSec)
	if c.opt.Header {
		t = strings.TrimSpace(t)
	}
	rows := countRows(c.res, iv.Counts)
	orphans := attachMetrics(rows, c.opt.Metrics)
	c.rows(t, rows, orphans, false)
}

func (c *csvWriter) header(interval bool) {
	if c.opt.NoHeader {
		return
	}
	var cols []string
	if c.opt.Region != nil {
		cols = append(cols, "region")
	}
	if interval {
		cols = append(cols, "time")
	}
	cols = append(cols, perfColumns...)
	c.inHeader = true
	c.record(append(cols, extraColumns...))
	c.inHeader = false
}

// rows writes the records of one report (time == "" outside interval mode).
func (c *csvWriter) rows(time string, rows []row, orphans []result.Metric, repeated bool) {
	for _, r := range rows {
		c.record(c.countRecord(time, r, repeated))
		for i := 1; i < len(r.metrics); i++ {
			c.record(c.metricRecord(time, r.event, r.group, r.cpu, r.metrics[i], repeated))
		}
	}
	for _, m := range orphans {
		c.record(c.metricRecord(time, m.Event, -1, m.CPU, m, repeated))
	}
}

// prefix is the time and, in perf's form, the "CPU0" field.
func (c *csvWriter) prefix(time string, cpu int) []string {
	var f []string
	if time != "" {
		f = append(f, time)
	}
	if cpu >= 0 && !c.opt.Header {
		label, n := c.res.CPULabel(cpu)
		f = append(f, label)
		if c.res.Aggregation != nil {
			f = append(f, strconv.Itoa(n)) // perf -x --per-socket: id, then the CPUs summed
		}
	}
	return f
}

func (c *csvWriter) countRecord(time string, r row, repeated bool) []string {
	value := r.marker()
	if r.hasValue() {
		value = formatCount(r.value, r.unit)
	}
	f := c.prefix(time, r.cpu)
	if r.thread != "" && !c.opt.Header {
		f = append(f, r.thread) // perf -x --per-thread: comm-tid first
	}
	f = append(f, value, r.unit, r.event)
	variance := fmt.Sprintf("%.2f%%", r.varPct)
	if c.opt.Header && !repeated {
		variance = ""
	}
	if c.opt.Header || repeated {
		f = append(f, variance)
	}
	f = append(f, strconv.FormatUint(r.runTime, 10), fmt.Sprintf("%.2f", r.pct()))
	var m *result.Metric
	if len(r.metrics) > 0 {
		m = &r.metrics[0]
	}
	f = append(f, c.metricFields(m)...)
	if !c.opt.Header {
		return f
	}
	raw, scaled := "", ""
	if r.hasValue() {
		raw, scaled = strconv.FormatFloat(r.raw, 'f', -1, 64), strconv.FormatFloat(r.scaled, 'f', -1, 64)
	}
	f = append(f, raw, scaled, strconv.FormatUint(r.enabled, 10), strconv.FormatUint(r.running, 10),
		strconv.Itoa(r.group), strconv.Itoa(r.cpu), csvStatus(r))
	f = append(f, c.metricExtra(m)...)
	bnd := ""
	if r.hasValue() {
		bnd = boundField(r.bound)
	}
	return append(f, bnd, metricBound(m))
}

// metricBound is the --csv metric-bound-pct field.
func metricBound(m *result.Metric) string {
	if m == nil || !m.Valid {
		return ""
	}
	return boundField(m.Bound)
}

// csvStatus is the status column: "simulated" for a simulator's count.
func csvStatus(r row) string {
	if r.simulated && r.status == result.Counted {
		return "simulated"
	}
	return string(r.status)
}

// SimulatedLine is the comment line that starts CSV output of simulated counts (perf's CSV
// readers skip "#" lines, as they skip perf's "# started on").
func SimulatedLine(r *result.Stat) string {
	return "# SIMULATED by " + r.Simulator() + ": these are not hardware counts\n"
}

// metricRecord is a record for a second metric of an event, or a metric without a row:
// perf leaves the count fields empty; the --csv form still names the event and CPU.
func (c *csvWriter) metricRecord(time, event string, group, cpu int, m result.Metric, repeated bool) []string {
	f := c.prefix(time, cpu)
	if !c.opt.Header {
		n := 5 // value, unit, event, running-time, pct-running
		if repeated {
			n++
		}
		f = append(f, make([]string, n)...)
		return append(f, c.metricFields(&m)...)
	}
	f = append(f, "", "", event, "", "", "")
	f = append(f, c.metricFields(&m)...)
	g := ""
	if group >= 0 {
		g = strconv.Itoa(group)
	}
	f = append(f, "", "", "", "", g, strconv.Itoa(cpu), "")
	f = append(f, c.metricExtra(&m)...)
	return append(f, "", metricBound(&m))
}

// blankSep reports whether sep is a space or a tab.
func blankSep(sep rune) bool { return sep == ' ' || sep == '\t' }

// metricFields are metric-value and metric-unit. In perf's form, where no column is left
// for them, the notes go in parentheses after the unit.
func (c *csvWriter) metricFields(m *result.Metric) []string {
	if m == nil {
		return []string{"", ""}
	}
	unit := csvUnit(*m)
	if notes := metricNotes(*m, false); len(notes) > 0 && !c.opt.Header {
		unit = strings.TrimSpace(unit + " (" + strings.Join(notes, "; ") + ")")
	}
	return []string{describeMetric(*m).value, unit}
}

// metricExtra are the --csv metric-name and metric-note fields.
func (c *csvWriter) metricExtra(m *result.Metric) []string {
	if m == nil {
		return []string{"", ""}
	}
	return []string{m.Name, strings.Join(metricNotes(*m, false), "; ")}
}

// record writes fields RFC 4180 style: a field holding the separator, a quote, CR or LF is
// quoted, with quotes doubled; records end with LF as perf's do. A space or tab separator
// (-x ' ') is read by splitting at runs of blanks (the shell's read, awk, perf's own tests),
// where quotes would stick to the words: blanks inside fields are then left as perf leaves
// them (the padded time, "<not counted>", "CPUs utilized"). This is pmc's one CSV record
// writer. encoding/csv's Writer would also quote a field that starts with a space, and perf
// stat -x -I pads the time to 16 characters: pmc's -x output matches perf's byte for byte
// (TestCSVMatchesPerf), and encoding/csv's Reader reads every record back (the tests).
func (c *csvWriter) record(fields []string) {
	if c.opt.Region != nil && !c.inHeader {
		fields = append([]string{*c.opt.Region}, fields...)
	}
	for i, f := range fields {
		if i > 0 {
			c.b.WriteRune(c.opt.Sep)
		}
		if (strings.ContainsRune(f, c.opt.Sep) && !blankSep(c.opt.Sep)) || strings.ContainsAny(f, "\"\r\n") {
			c.b.WriteByte('"')
			c.b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			c.b.WriteByte('"')
			continue
		}
		c.b.WriteString(f)
	}
	c.b.WriteByte('\n')
}

package statfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// PerfJSON writes r as perf stat -j (perf 6.1) does: one JSON object per line and per
// counter, with perf's keys in perf's order: the row's place ("interval", then "cpu" with -A,
// "socket"/"die"/"core"/"node" and "aggregate-number" with --per-X, "thread" with
// --per-thread), then "counter-value" (a string: the value in its unit, or "<not counted>",
// "<not supported>"), "unit", "event", "variance" (-r N), "event-runtime" (ns the counter
// ran), "pcnt-running", "metric-value" and "metric-unit". An event's further metrics get
// lines of their own with the row's place and the two metric keys, as perf prints them.
//
// perf's conventions are kept, because its readers rely on them: a row without a metric (or
// whose metric is undefined) has "metric-value" 0 and "metric-unit" "". pmc's own --json
// (pmc.stat/v1) says more: validity, bounds, notes, every run.
func PerfJSON(w io.Writer, r *result.Stat) error {
	p := &perfJSON{res: r}
	rows := summaryRows(r, false)
	orphans := attachMetrics(rows, r.Metrics)
	p.rows("", rows, orphans, repeats(r) > 1)
	_, err := w.Write(p.b.Bytes())
	return err
}

// PerfJSONInterval writes one -I interval as perf stat -j -I does: every line starts with
// "interval". metrics are the interval's.
func PerfJSONInterval(w io.Writer, r *result.Stat, iv result.Interval, metrics []result.Metric) error {
	p := &perfJSON{res: r}
	rows := countRows(r, iv.Counts)
	orphans := attachMetrics(rows, metrics)
	p.rows(strconv.FormatFloat(iv.TimeSec, 'f', 9, 64), rows, orphans, false)
	_, err := w.Write(p.b.Bytes())
	return err
}

type perfJSON struct {
	b   bytes.Buffer
	res *result.Stat
	n   int // keys written on the current line
}

func (p *perfJSON) rows(interval string, rows []row, orphans []result.Metric, repeated bool) {
	for _, r := range rows {
		ms := validMetrics(r.metrics)
		p.begin(interval, r.cpu, r.thread)
		value := r.marker()
		if r.hasValue() {
			value = strconv.FormatFloat(r.value, 'f', 6, 64)
		}
		p.str("counter-value", value)
		p.str("unit", r.unit)
		p.str("event", r.event)
		if repeated {
			p.raw("variance", strconv.FormatFloat(r.varPct, 'f', 2, 64))
		}
		p.raw("event-runtime", strconv.FormatUint(r.runTime, 10))
		p.raw("pcnt-running", strconv.FormatFloat(r.pct(), 'f', 2, 64))
		var first *result.Metric
		if len(ms) > 0 {
			first = &ms[0]
		}
		p.metric(first)
		p.end()
		for i := 1; i < len(ms); i++ {
			p.begin(interval, r.cpu, r.thread)
			p.metric(&ms[i])
			p.end()
		}
	}
	for _, m := range validMetrics(orphans) {
		p.begin(interval, m.CPU, "")
		p.metric(&m)
		p.end()
	}
}

// begin starts a line with the row's place.
func (p *perfJSON) begin(interval string, cpu int, thread string) {
	p.b.WriteByte('{')
	p.n = 0
	if interval != "" {
		p.raw("interval", interval)
	}
	if cpu >= 0 {
		if agg := p.res.Aggregation; agg != nil {
			id, n := p.res.CPULabel(cpu)
			p.str(agg.By, id)
			p.raw("aggregate-number", strconv.Itoa(n))
		} else {
			p.str("cpu", strconv.Itoa(cpu))
		}
	}
	if thread != "" {
		p.str("thread", thread)
	}
}

func (p *perfJSON) end() { p.b.WriteString("}\n") }

// metric writes metric-value and metric-unit: perf's 0 and "" when there is none.
func (p *perfJSON) metric(m *result.Metric) {
	if m == nil {
		p.raw("metric-value", "0.000000")
		p.str("metric-unit", "")
		return
	}
	v, unit := perfMetric(*m)
	p.raw("metric-value", strconv.FormatFloat(v, 'f', 6, 64))
	p.str("metric-unit", unit)
}

// perfMetric is a metric as perf's JSON gives it: rates scaled to K/M/G per second, the unit
// followed by the name where the unit alone does not say what it is (and for the metrics -M
// asked for, as perf names those).
func perfMetric(m result.Metric) (float64, string) {
	v, unit := m.Value, m.Unit
	if unit == "/sec" {
		v, unit = rateUnit(v)
	}
	if (!selfDescribing(unit) || m.Asked) && m.Name != "" {
		unit = strings.TrimSpace(unit + " " + m.Name)
	}
	return v, unit
}

// str writes a string value, quoted as JSON but with '<' and '>' as they are ("<not
// counted>", as perf writes it).
func (p *perfJSON) str(key, value string) {
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	enc.Encode(value) // a string always encodes
	p.raw(key, strings.TrimSuffix(q.String(), "\n"))
}

// raw writes one key with a value already in JSON form, in perf's spacing.
func (p *perfJSON) raw(key, value string) {
	if p.n > 0 {
		p.b.WriteString(", ")
	}
	fmt.Fprintf(&p.b, "%q : %s", key, value)
	p.n++
}

// validMetrics are the metrics that have a value: perf's JSON cannot say "undefined".
func validMetrics(ms []result.Metric) []result.Metric {
	return slices.DeleteFunc(slices.Clone(ms), func(m result.Metric) bool { return !m.Valid })
}

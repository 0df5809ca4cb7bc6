package reportfile

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/report"
	"github.com/pmc-tools/pmc/internal/result"
)

// MetricsSchema names the JSON document of --metric-only --json.
const MetricsSchema = "pmc.stat.metrics/v1"

// notTogether starts the warning package metrics gives a metric whose operands were
// multiplexed apart.
const notTogether = "not measured together"

// notes lists why a metric should not be taken at face value, for one line of text:
// "not measured together" as a short flag (the warning's list of running shares is left to
// the JSON and CSV forms), then the other parts of the warning.
func notes(m result.Metric) []string {
	var out []string
	if m.Valid && !m.Together {
		out = append(out, notTogether)
	}
	for _, p := range strings.Split(m.Warning, "; ") {
		if p = strings.TrimSpace(p); p != "" && !strings.HasPrefix(p, notTogether) {
			out = append(out, p)
		}
	}
	return out
}

// MetricOnlyText prints the metrics of res as a table: value, unit, name and, after "!!",
// what makes a value doubtful; the elapsed time follows as in perf's output.
func MetricOnlyText(w io.Writer, res *result.Stat) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n %s:\n\n", report.Title(res))
	if len(res.Metrics) == 0 {
		b.WriteString("   no metrics: none applies to the events counted\n")
	}
	for _, m := range res.Metrics {
		name := m.Name
		if m.CPU >= 0 {
			name = fmt.Sprintf("CPU%-4d %s", m.CPU, m.Name)
		}
		value := "undefined"
		if m.Valid {
			value = metricValue(m.Value)
		}
		unit := m.Unit
		if unit == "" {
			unit = "-"
		}
		line := fmt.Sprintf("  %16s  %-16s %-26s", value, unit, name)
		if n := notes(m); len(n) > 0 {
			line += " !! " + strings.Join(n, "; ")
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	fmt.Fprintf(&b, "\n %17.9f seconds time elapsed\n\n", res.ElapsedSec)
	_, err := w.Write(b.Bytes())
	return err
}

// metricColumns are the fields of a --metric-only CSV record.
var metricColumns = []string{"metric-value", "metric-unit", "metric-name", "cpu", "measured-together", "valid", "metric-note"}

// MetricOnlyCSV writes one RFC 4180 record per metric (columns in metricColumns; with header
// a first row names them): the value with full precision, empty when undefined.
func MetricOnlyCSV(w io.Writer, res *result.Stat, sep rune, header bool) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	if sep != 0 {
		cw.Comma = sep
	}
	if header {
		if err := cw.Write(metricColumns); err != nil {
			return fmt.Errorf("reportfile: csv: %w", err)
		}
	}
	for _, m := range res.Metrics {
		value := ""
		if m.Valid {
			value = strconv.FormatFloat(m.Value, 'f', -1, 64)
		}
		rec := []string{value, m.Unit, m.Name, strconv.Itoa(m.CPU), strconv.FormatBool(m.Together),
			strconv.FormatBool(m.Valid), m.Warning}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("reportfile: csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("reportfile: csv: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// MetricsDoc is the --metric-only --json document: the fields of result.Stat that say what
// was measured, and the metrics.
type MetricsDoc struct {
	Schema     string          `json:"schema"`
	Command    []string        `json:"command,omitempty"`
	Mode       string          `json:"mode"`
	PIDs       []int           `json:"pids,omitempty"`
	CPUs       []int           `json:"cpus,omitempty"`
	Runs       int             `json:"runs"`
	ElapsedSec float64         `json:"elapsed_sec"`
	ExitStatus int             `json:"exit_status"`
	Metrics    []result.Metric `json:"metrics"`
}

// MetricOnlyJSON writes the metrics of res as a MetricsDoc, indented, with a final newline.
func MetricOnlyJSON(w io.Writer, res *result.Stat) error {
	doc := MetricsDoc{Schema: MetricsSchema, Command: res.Command, Mode: res.Mode, PIDs: res.PIDs,
		CPUs: res.CPUs, Runs: len(res.Runs), ElapsedSec: res.ElapsedSec, ExitStatus: res.ExitStatus,
		Metrics: res.Metrics}
	if doc.Metrics == nil {
		doc.Metrics = []result.Metric{}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("reportfile: json: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

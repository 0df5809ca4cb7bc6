package statfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// MetricsSchema names the JSON document of --metric-only --json.
const MetricsSchema = "pmc.stat.metrics/v1"

// metricOnlyNotes are metricNotes in their short form, without "undefined": the value
// column already says it.
func metricOnlyNotes(m result.Metric) []string {
	n := metricNotes(m, true)
	if !m.Valid && len(n) > 0 && n[0] == "undefined" {
		n = n[1:]
	}
	return n
}

// MetricOnlyText prints the metrics of res as a table: value, unit, name and, after "!!",
// what makes a value doubtful; the elapsed time follows as in perf's output.
func MetricOnlyText(w io.Writer, res *result.Stat) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n %s:\n\n", Title(res))
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
			value = MetricValue(m.Value)
		}
		unit := m.Unit
		if unit == "" {
			unit = "-"
		}
		line := fmt.Sprintf("  %16s  %-16s %-26s", value, unit, name)
		if n := metricOnlyNotes(m); len(n) > 0 {
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
// a first row names them): the value with full precision, empty when undefined. It shares
// its record writer with CSV.
func MetricOnlyCSV(w io.Writer, res *result.Stat, sep rune, header bool) error {
	c, err := newCSVWriter(res, CSVOptions{Sep: sep})
	if err != nil {
		return err
	}
	if header {
		c.record(metricColumns)
	}
	for _, m := range res.Metrics {
		value := ""
		if m.Valid {
			value = strconv.FormatFloat(m.Value, 'f', -1, 64)
		}
		c.record([]string{value, m.Unit, m.Name, strconv.Itoa(m.CPU), strconv.FormatBool(m.Together),
			strconv.FormatBool(m.Valid), m.Warning})
	}
	_, err = w.Write(c.b.Bytes())
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
		CPUs: res.CPUs, Runs: res.RunsDone(), ElapsedSec: res.ElapsedSec, ExitStatus: res.ExitStatus,
		Metrics: res.Metrics}
	if doc.Metrics == nil {
		doc.Metrics = []result.Metric{}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("metric-only json: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

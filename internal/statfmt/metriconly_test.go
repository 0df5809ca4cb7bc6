package statfmt

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// TestMetricOnlyCSVRoundTrip: names, units and warnings with separators, quotes and line
// breaks read back unchanged with encoding/csv; an undefined value is an empty field.
func TestMetricOnlyCSVRoundTrip(t *testing.T) {
	res := &result.Stat{Metrics: []result.Metric{
		{Name: `a,b"c`, Unit: "x\ny", Value: 0.1, CPU: -1, Valid: true, Together: true},
		{Name: "u", Unit: "%", CPU: 3, Warning: "undefined: division by zero; x; y"},
	}}
	for _, sep := range []rune{',', ';', '\t'} {
		var b bytes.Buffer
		if err := MetricOnlyCSV(&b, res, sep, true); err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(&b)
		r.Comma = sep
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("sep %q: %v\n%s", sep, err, b.String())
		}
		want := [][]string{metricColumns,
			{"0.1", "x\ny", `a,b"c`, "-1", "true", "true", ""},
			{"", "%", "u", "3", "false", "false", "undefined: division by zero; x; y"}}
		if !reflect.DeepEqual(recs, want) {
			t.Errorf("sep %q: got %q", sep, recs)
		}
	}
	var b bytes.Buffer
	if err := MetricOnlyCSV(&b, res, '"', false); err == nil {
		t.Error("a quote as separator must be an error")
	}
}

func TestMetricOnlyJSON(t *testing.T) {
	var b bytes.Buffer
	if err := MetricOnlyJSON(&b, &result.Stat{Mode: "launch", Command: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	var doc MetricsDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != MetricsSchema || doc.Metrics == nil || len(doc.Metrics) != 0 || !strings.Contains(b.String(), `"metrics": []`) {
		t.Errorf("empty metrics must be an empty list with the schema:\n%s", b.String())
	}
}

func TestMetricOnlyTextNotes(t *testing.T) {
	m := result.Metric{Name: "ipc", Unit: "insn per cycle", Value: 3, CPU: -1, Valid: true,
		Warning: "implausible: 3.00 instructions per cycle on a core that issues at most 2; not measured together: instructions ran 50.00% (group 1), cycles ran 100.00% (group 0)"}
	want := []string{"not measured together", "implausible: 3.00 instructions per cycle on a core that issues at most 2"}
	if got := metricOnlyNotes(m); !reflect.DeepEqual(got, want) {
		t.Errorf("notes = %q, want %q", got, want)
	}
	var b bytes.Buffer
	MetricOnlyText(&b, &result.Stat{Command: []string{"a"}, Metrics: []result.Metric{m}, Runs: []result.Run{{}, {}, {}}})
	if !strings.Contains(b.String(), "'a' (3 runs)") || !strings.Contains(b.String(), "3.000  insn per cycle   ipc") {
		t.Errorf("unexpected text:\n%s", b.String())
	}
}

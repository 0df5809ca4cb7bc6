package statfmt

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/result"
)

var goldenCases = []struct {
	name  string
	build func() *result.Stat
}{
	{"default", caseDefault},
	{"multiplexed", caseMultiplexed},
	{"notcounted", caseNotCounted},
	{"repeat5", caseRepeat5},
	{"interval", caseInterval},
	{"percpu", casePerCPU},
	{"metrics-flagged", caseMetricsFlagged},
	{"simulated", caseSimulated},
}

// renderText prints r as pmc stat will: a Result with intervals is streamed one interval
// at a time with that interval's metrics, as the -I loop does.
func renderText(t *testing.T, r *result.Stat, opt TextOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if len(r.Intervals) == 0 {
		if err := Text(&b, r, opt); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for i, iv := range r.Intervals {
		o := opt
		o.Metrics = intervalMetrics(r, i)
		if err := TextInterval(&b, r, iv, i%25 == 0, o); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func renderCSV(t *testing.T, r *result.Stat, opt CSVOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if len(r.Intervals) == 0 {
		if err := CSV(&b, r, opt); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for i, iv := range r.Intervals {
		o := opt
		o.Metrics = intervalMetrics(r, i)
		if err := CSVInterval(&b, r, iv, i == 0, o); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func renderJSON(t *testing.T, r *result.Stat) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			r := c.build()
			checkGolden(t, "stat."+c.name+".txt", renderText(t, r, TextOptions{}))
			checkGolden(t, "stat."+c.name+".json", renderJSON(t, r))
			checkGolden(t, "stat."+c.name+".csv", renderCSV(t, r, CSVOptions{Sep: ',', Header: true}))
			checkGolden(t, "stat."+c.name+".perf.csv", renderCSV(t, r, CSVOptions{Sep: ','}))
		})
	}
}

// checkGolden compares got with testdata/name, or rewrites the file with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// TestSimulatedLabel: simulated counts say so in every format, and counted ones do not.
func TestSimulatedLabel(t *testing.T) {
	sim, real := caseSimulated(), caseDefault()
	for name, render := range map[string]func(*result.Stat) []byte{
		"text":     func(r *result.Stat) []byte { return renderText(t, r, TextOptions{}) },
		"json":     func(r *result.Stat) []byte { return renderJSON(t, r) },
		"csv":      func(r *result.Stat) []byte { return renderCSV(t, r, CSVOptions{Sep: ',', Header: true}) },
		"perf-csv": func(r *result.Stat) []byte { return renderCSV(t, r, CSVOptions{Sep: ','}) },
	} {
		got, other := string(render(sim)), string(render(real))
		if !strings.Contains(strings.ToUpper(got), "SIMULATED") {
			t.Errorf("%s: no SIMULATED label:\n%s", name, got)
		}
		if strings.Contains(strings.ToUpper(other), "SIMULATED") {
			t.Errorf("%s: counted result labelled simulated:\n%s", name, other)
		}
	}
	text := string(renderText(t, sim, TextOptions{}))
	if n := strings.Count(text, "(SIMULATED)"); n != 3 {
		t.Errorf("%d rows labelled (SIMULATED), want the 3 counted:\n%s", n, text)
	}
}

package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// perfLine is one line of `perf stat -j` (perf 6.1).
type perfLine struct {
	Value  string  `json:"counter-value"`
	Unit   string  `json:"unit"`
	Event  string  `json:"event"`
	Metric float64 `json:"metric-value"`
	MUnit  string  `json:"metric-unit"`
}

// TestAgreesWithPerf recomputes the metrics perf 6.1 printed for a real run on the
// development machine (testdata/perf-6.1.dd.json: `perf stat -j -e task-clock,
// context-switches,cpu-migrations,page-faults,duration_time -- dd ...`) from its counts.
func TestAgreesWithPerf(t *testing.T) {
	data, err := os.ReadFile("testdata/perf-6.1.dd.json")
	if err != nil {
		t.Fatal(err)
	}
	var lines []perfLine
	r := &result.Stat{Scaled: true}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var l perfLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		v, err := strconv.ParseFloat(l.Value, 64)
		if err != nil {
			t.Fatal(err)
		}
		if l.Unit == "msec" {
			v *= 1e6 // Summary holds clocks in ns
		}
		lines = append(lines, l)
		r.Summary = append(r.Summary, result.Summary{Event: l.Event, Group: len(r.Summary), CPU: -1,
			Status: result.Counted, Runs: 1, Mean: v, Enabled: 1, Running: 1})
	}
	byEvent := map[string]string{
		"task-clock": "cpus_utilized", "context-switches": "context_switches_per_sec",
		"cpu-migrations": "cpu_migrations_per_sec", "page-faults": "page_faults_per_sec",
	}
	var names []string
	for _, l := range lines {
		if n, ok := byEvent[l.Event]; ok {
			names = append(names, n)
		}
	}
	ms := Builtin("").Compute(r, names, Options{})
	if len(ms) != 4 {
		t.Fatalf("computed %d metrics, want 4: %+v", len(ms), ms)
	}
	for _, l := range lines {
		name, ok := byEvent[l.Event]
		if !ok {
			continue
		}
		m := find(t, ms, name, -1)
		want, got := l.Metric, m.Value
		if l.MUnit == "K/sec" {
			got /= 1e3
		}
		// perf prints 6 decimals.
		if !m.Valid || !m.Together || m.Event != l.Event || math.Abs(got-want) > 5e-7 {
			t.Errorf("%s = %+v (%.6f %s), perf printed %.6f %s beside %s", name, m, got, l.MUnit, want, l.MUnit, l.Event)
		}
	}
}

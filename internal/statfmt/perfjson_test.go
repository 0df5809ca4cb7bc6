package statfmt

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/result"
)

// The *.j.json files in testdata/perf/ are perf stat -j 6.1's output on the development VM;
// the cases below carry the counts perf printed (event-runtime is the clock's ns; the elapsed
// time is the one perf's "CPUs utilized" implies). pmc's -j must print the same bytes.

// clock is a cpu-clock or task-clock count of raw ns that ran for running ns, on cpu.
func clock(event string, cpu int, raw, running uint64) result.Count {
	return result.Count{Event: event, CPU: cpu, Status: result.Counted, Raw: raw, Scaled: float64(raw),
		Enabled: running, Running: running, Unit: "msec", Encoding: encCPUClock}
}

// casePerfJSONDefault is `perf stat -j -e task-clock,page-faults true`.
func casePerfJSONDefault() *result.Stat {
	const tc = 688656
	r := finish(&result.Stat{Command: []string{"true"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: tc / 1e9 / 0.176366, Counts: []result.Count{
			sw("task-clock", 0, encTaskClock, tc, tc),
			sw("page-faults", 1, encPageFault, 49, tc),
		}}}})
	r.Metrics = softwareMetrics(r)
	return r
}

// casePerfJSONPerCPU is `perf stat -j -A -a -e cpu-clock sleep 0.05`.
func casePerfJSONPerCPU() *result.Stat {
	elapsed := 168309360 / 1e9 / 0.987684
	r := finish(&result.Stat{Command: []string{"sleep", "0.05"}, Mode: "system", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: elapsed, Counts: []result.Count{
			clock("cpu-clock", 0, 168309360, 168311090), clock("cpu-clock", 1, 170421359, 170422409)}}}})
	for _, s := range r.Summary {
		r.Metrics = append(r.Metrics, cpusUtilized(s.Event, s.CPU, s.Mean, elapsed))
	}
	return r
}

// casePerfJSONPerSocket is `perf stat -j --per-socket -a -e cpu-clock sleep 0.05`: both CPUs
// summed into socket S0's row (the row of its first CPU).
func casePerfJSONPerSocket() *result.Stat {
	elapsed := 306862997 / 1e9 / 2.011290
	r := finish(&result.Stat{Command: []string{"sleep", "0.05"}, Mode: "system", Scaled: true, Backend: "perf_event",
		Aggregation: &result.Aggregation{By: "socket", Groups: []result.AggrGroup{{ID: "S0", CPUs: []int{0, 1}}}},
		Runs:        []result.Run{{ElapsedSec: elapsed, Counts: []result.Count{clock("cpu-clock", 0, 306862997, 306868419)}}}})
	r.Metrics = []result.Metric{cpusUtilized("cpu-clock", 0, 306862997, elapsed)}
	return r
}

func TestPerfJSONMatchesPerf(t *testing.T) {
	for _, c := range []struct {
		file  string
		build func() *result.Stat
	}{
		{"default.j.json", casePerfJSONDefault},
		{"percpu.j.json", casePerfJSONPerCPU},
		{"persocket.j.json", casePerfJSONPerSocket},
	} {
		t.Run(c.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := PerfJSON(&b, c.build()); err != nil {
				t.Fatal(err)
			}
			if want := readPerf(t, c.file); !bytes.Equal(b.Bytes(), want) {
				t.Errorf("pmc and perf differ:\n%s", golden.Diff(string(want), b.String()))
			}
		})
	}
}

// TestPerfJSONIntervalMatchesPerf: `perf stat -j -e task-clock,page-faults -I 100 sleep 0.25`,
// with the metric values masked: perf divides an interval's task-clock by the nominal -I
// length (100 ms), pmc by the interval's measured length.
func TestPerfJSONIntervalMatchesPerf(t *testing.T) {
	r := intervalResult([]string{"sleep", "0.25"}, []ivCase{
		{0.104248587, 922382, 75}, {0.228260271, 0, 0}, {0.266268337, 47343, 0}})
	var b bytes.Buffer
	for i, iv := range r.Intervals {
		if err := PerfJSONInterval(&b, r, iv, intervalMetrics(r, i)); err != nil {
			t.Fatal(err)
		}
	}
	mask := regexp.MustCompile(`"metric-value" : [0-9.]+`)
	want := mask.ReplaceAllString(string(readPerf(t, "interval.j.json")), `"metric-value" : N`)
	if got := mask.ReplaceAllString(b.String(), `"metric-value" : N`); got != want {
		t.Errorf("pmc and perf differ:\n%s", golden.Diff(want, got))
	}
}

// TestPerfJSONLines: every line is one JSON object with perf's keys only, a row's further
// metrics get lines of their own, an undefined metric is perf's 0 and "", and -r adds
// perf's "variance".
func TestPerfJSONLines(t *testing.T) {
	r := caseRepeat5()
	r.Metrics = append(r.Metrics,
		result.Metric{Name: "extra", Value: 2, Unit: "%", Event: "task-clock", CPU: -1, Valid: true, Asked: true},
		result.Metric{Name: "ipc", Unit: "insn per cycle", Event: "page-faults", CPU: -1, Valid: false})
	var b bytes.Buffer
	if err := PerfJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{"counter-value": true, "unit": true, "event": true, "variance": true, "event-runtime": true,
		"pcnt-running": true, "metric-value": true, "metric-unit": true}
	var extra, variance int
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		for k := range obj {
			if !keys[k] {
				t.Errorf("key %q is not perf's: %s", k, line)
			}
		}
		if _, ok := obj["variance"]; ok {
			variance++
		}
		if obj["metric-unit"] == "% extra" && len(obj) == 2 {
			extra++
		}
		if obj["event"] == "page-faults" && (obj["metric-unit"] != "/sec" && obj["metric-unit"] != "K/sec") {
			t.Errorf("page-faults carries %v: the undefined ipc must not take the rate's place", obj["metric-unit"])
		}
	}
	if extra != 1 || variance != len(r.Summary) {
		t.Errorf("%d lines of the second metric (want 1), %d with variance (want %d):\n%s", extra, variance, len(r.Summary), b.String())
	}
}

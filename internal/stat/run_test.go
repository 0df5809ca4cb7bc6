package stat

import (
	"context"

	"github.com/pmc-tools/pmc/internal/result"

	"math"
	"testing"
	"time"
)

func evs(names ...string) []Event {
	out := make([]Event, len(names))
	for i, n := range names {
		out[i] = Event{Name: n, Group: i}
	}
	return out
}

func measure(t *testing.T, spec string, req *Request) *result.Stat {
	t.Helper()
	s, err := ParseFakeSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	if req.Mode == "" {
		req.Mode = Launch
	}
	res, err := Measure(context.Background(), Fake{Spec: s}, req, Options{KeepRuns: true, KeepIntervals: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestScalingAndStatus(t *testing.T) {
	res := measure(t, `{"runs":[{"elapsed_sec":1,"exit_status":3,"counts":{
		"a":{"raw":1000,"enabled":300,"running":100},
		"b":{"raw":5,"enabled":300,"running":300},
		"c":{"raw":0,"enabled":300,"running":0},
		"d":{"error":"not-supported"}}}]}`, &Request{Events: evs("a", "b", "c", "d", "e")})
	c := res.Runs[0].Counts
	if c[0].Status != result.Counted || c[0].Scaled != 3000 || c[0].Raw != 1000 {
		t.Errorf("a: %+v, want scaled 3000 from raw 1000 at 33%%", c[0])
	}
	if math.Abs(c[0].RunningPct()-100.0/3) > 1e-9 {
		t.Errorf("a running %.4f%%", c[0].RunningPct())
	}
	if c[1].Scaled != 5 || c[1].RunningPct() != 100 {
		t.Errorf("b: %+v", c[1])
	}
	if c[2].Status != result.NotCounted || c[2].Scaled != 0 {
		t.Errorf("c: %+v, want not-counted", c[2])
	}
	if c[3].Status != result.NotSupported || c[3].Error == "" {
		t.Errorf("d: %+v, want not-supported with a reason", c[3])
	}
	if c[4].Status != result.NotSupported {
		t.Errorf("e (missing from spec): %+v", c[4])
	}
	if res.ExitStatus != 3 || res.Backend != "fake" || res.Schema != result.SchemaVersion {
		t.Errorf("result header %+v", res)
	}
}

func TestNoScale(t *testing.T) {
	res := measure(t, `{"runs":[{"counts":{"a":{"raw":1000,"enabled":300,"running":100}}}]}`,
		&Request{Events: evs("a"), NoScale: true})
	if c := res.Runs[0].Counts[0]; c.Scaled != 1000 || res.Scaled {
		t.Errorf("--no-scale: %+v", c)
	}
}

func TestGroupTooLargeIsNotCounted(t *testing.T) {
	res := measure(t, `{"runs":[{"counts":{"a":{"error":"group-too-large"}}}]}`, &Request{Events: evs("a")})
	c := res.Runs[0].Counts[0]
	if c.Status != result.NotCounted || c.Error == "" {
		t.Errorf("%+v: want not-counted with the reason", c)
	}
}

func TestRepeatStatistics(t *testing.T) {
	res := measure(t, `{"runs":[
		{"elapsed_sec":1.0,"counts":{"a":{"raw":100,"enabled":10,"running":10}}},
		{"elapsed_sec":1.2,"counts":{"a":{"raw":110,"enabled":10,"running":10}}},
		{"elapsed_sec":1.4,"counts":{"a":{"raw":120,"enabled":10,"running":5}}}]}`,
		&Request{Events: evs("a"), Repeat: 3, Warmup: 1})
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs recorded, want 3 (warmup excluded)", len(res.Runs))
	}
	// warmup used runs[0]; counted runs are runs[1], runs[2], runs[0]: 110, 240 (scaled), 100.
	s := res.Summary[0]
	wantMean := (110.0 + 240 + 100) / 3
	if math.Abs(s.Mean-wantMean) > 1e-9 || s.Min != 100 || s.Max != 240 || s.Runs != 3 {
		t.Errorf("summary %+v, want mean %.3f", s, wantMean)
	}
	sd := math.Sqrt((math.Pow(110-wantMean, 2) + math.Pow(240-wantMean, 2) + math.Pow(100-wantMean, 2)) / 2)
	if math.Abs(s.Stddev-sd) > 1e-9 || math.Abs(s.VarPct-100*sd/math.Sqrt(3)/wantMean) > 1e-9 {
		t.Errorf("stddev %.6f var %.6f%%, want %.6f", s.Stddev, s.VarPct, sd)
	}
	if math.Abs(res.ElapsedSec-(1.2+1.4+1.0)/3) > 1e-9 {
		t.Errorf("elapsed mean %.4f", res.ElapsedSec)
	}
	if s.Enabled != 30 || s.Running != 25 {
		t.Errorf("times summed over runs: %d/%d", s.Running, s.Enabled)
	}
}

func TestIntervalsAreDeltas(t *testing.T) {
	var seen []result.Interval
	s, _ := ParseFakeSpec([]byte(`{"runs":[{"elapsed_sec":0.25,"counts":{"a":{"raw":70,"enabled":250,"running":250}},
		"intervals":[{"a":{"raw":10,"enabled":100,"running":100}},{"a":{"raw":50,"enabled":200,"running":200}}]}]}`))
	res, err := Measure(context.Background(), Fake{Spec: s}, &Request{Mode: Launch, Events: evs("a"),
		Interval: 100 * time.Millisecond}, Options{KeepIntervals: true, OnInterval: func(iv result.Interval) { seen = append(seen, iv) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		t   float64
		raw uint64
	}{{0.1, 10}, {0.2, 40}, {0.25, 20}}
	if len(res.Intervals) != len(want) || len(seen) != len(want) {
		t.Fatalf("%d intervals (%d streamed), want %d", len(res.Intervals), len(seen), len(want))
	}
	for i, w := range want {
		iv := res.Intervals[i]
		if math.Abs(iv.TimeSec-w.t) > 1e-9 || iv.Counts[0].Raw != w.raw {
			t.Errorf("interval %d: t=%.3f raw=%d, want t=%.3f raw=%d", i, iv.TimeSec, iv.Counts[0].Raw, w.t, w.raw)
		}
	}
}

// A workload that ends before the first tick still gets its one (partial) interval, as perf
// prints it: perf stat -I 1000 true shows the counts of true.
func TestIntervalBeforeFirstTick(t *testing.T) {
	res := measure(t, `{"runs":[{"elapsed_sec":0.003,"counts":{"a":{"raw":7,"enabled":30,"running":30}}}]}`,
		&Request{Mode: Launch, Events: evs("a"), Interval: time.Second})
	if len(res.Intervals) != 1 || res.Intervals[0].Counts[0].Raw != 7 || math.Abs(res.Intervals[0].TimeSec-0.003) > 1e-9 {
		t.Errorf("intervals %+v, want one at 0.003 s with 7", res.Intervals)
	}
}

func TestPerCPUAggregation(t *testing.T) {
	spec := `{"runs":[{"counts":{"a":{"cpus":[{"raw":10,"enabled":100,"running":100},{"raw":30,"enabled":100,"running":50}]}}}]}`
	agg := measure(t, spec, &Request{Mode: System, Events: evs("a")})
	if c := agg.Runs[0].Counts; len(c) != 1 || c[0].Raw != 40 || c[0].Enabled != 200 || c[0].Running != 150 || c[0].CPU != -1 {
		t.Errorf("aggregated %+v", c)
	}
	per := measure(t, spec, &Request{Mode: System, Events: evs("a"), PerCPU: true})
	if c := per.Runs[0].Counts; len(c) != 2 || c[1].CPU != 1 || c[1].Scaled != 60 {
		t.Errorf("per-CPU %+v", c)
	}
}

func TestParseFakeSpecRejectsTypos(t *testing.T) {
	if _, err := ParseFakeSpec([]byte(`{"runs":[{"cunts":{}}]}`)); err == nil {
		t.Fatal("unknown field accepted")
	}
	if _, err := ParseFakeSpec([]byte(`{"runs":[]}`)); err == nil {
		t.Fatal("empty spec accepted")
	}
}

// TestRunsNotKept: without KeepRuns only the last run stays in memory, and the summary,
// accumulated as the runs end, is the same as over all of them (-r 100000 in constant memory).
func TestRunsNotKept(t *testing.T) {
	spec, err := ParseFakeSpec([]byte(`{"runs":[
		{"elapsed_sec":1.0,"counts":{"a":{"raw":100,"enabled":10,"running":10}}},
		{"elapsed_sec":1.2,"exit_status":4,"counts":{"a":{"raw":110,"enabled":10,"running":10}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Mode: Launch, Events: evs("a"), Repeat: 1000}
	res, err := Measure(context.Background(), Fake{Spec: spec}, req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := Measure(context.Background(), Fake{Spec: spec}, req, Options{KeepRuns: true})
	if len(res.Runs) != 1 || res.Runs[0].Index != 999 || res.ExitStatus != 4 || res.Completed != 1000 {
		t.Fatalf("%d runs kept (last index %d), exit %d, completed %d", len(res.Runs), res.Runs[0].Index, res.ExitStatus, res.Completed)
	}
	a, b := res.Summary[0], kept.Summary[0]
	if math.Abs(a.Mean-105) > 1e-9 || math.Abs(a.Mean-b.Mean) > 1e-9 || math.Abs(a.Stddev-b.Stddev) > 1e-9 || a.Runs != 1000 || len(kept.Runs) != 1000 {
		t.Errorf("accumulated %+v vs kept %+v", a, b)
	}
}

// TestInterruptedRepeat: a SIGINT in run 3 of -r 10 ends with 3 runs completed and says so.
func TestInterruptedRepeat(t *testing.T) {
	spec, _ := ParseFakeSpec([]byte(`{"runs":[{"counts":{"a":{"raw":1,"enabled":1,"running":1}}},
		{"counts":{"a":{"raw":1,"enabled":1,"running":1}}},
		{"signal":"SIGINT","exit_status":130,"counts":{"a":{"raw":1,"enabled":1,"running":1}}}]}`))
	res, _ := Measure(context.Background(), Fake{Spec: spec}, &Request{Mode: Launch, Events: evs("a"), Repeat: 10}, Options{})
	if res.Completed != 3 || !res.Interrupted || res.Repeat != 10 {
		t.Errorf("completed %d interrupted %v repeat %d", res.Completed, res.Interrupted, res.Repeat)
	}
}

// FuzzParseFakeSpec: a spec parses or is refused, never panics, and a parsed one measures.
func FuzzParseFakeSpec(f *testing.F) {
	f.Add([]byte(`{"runs":[{"elapsed_sec":1,"counts":{"a":{"raw":5,"enabled":2,"running":1}}}]}`))
	f.Add([]byte(`{"runs":[{"counts":{"a":{"cpus":[{"raw":1},{"error":"x"}]}},"intervals":[{}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseFakeSpec(data)
		if err != nil {
			return
		}
		Measure(context.Background(), Fake{Spec: s}, &Request{Mode: Launch, Events: evs("a"), Interval: time.Millisecond}, Options{})
	})
}

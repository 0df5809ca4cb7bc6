package stat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

// FakeSpec scripts the fake backend: what every run "measures". It is JSON so end-to-end tests
// can keep it in testdata (pmc stat --fake FILE ...). Nothing is executed.
//
//	{"runs": [{"elapsed_sec": 1.0, "user_sec": 0.9, "sys_sec": 0.1, "exit_status": 0,
//	           "counts": {"cycles": {"raw": 1000, "enabled": 1000000, "running": 500000}},
//	           "intervals": [{"cycles": {...cumulative...}}, ...]}]}
//
// Counts are keyed by the event name as written. A value may carry "error": "not-supported"
// (or any text) and, for per-CPU runs, "cpus": [{...}, {...}] instead of one value. Runs are
// used in turn (run i uses runs[i % len]). Events missing from a run are not supported.
type FakeSpec struct {
	Runs []FakeRun `json:"runs"`
}

// FakeRun is one scripted run.
type FakeRun struct {
	ElapsedSec float64                `json:"elapsed_sec"`
	UserSec    float64                `json:"user_sec"`
	SysSec     float64                `json:"sys_sec"`
	ExitStatus int                    `json:"exit_status"`
	Signal     string                 `json:"signal"`
	MaxRSSKB   int64                  `json:"max_rss_kb"`
	Stopped    bool                   `json:"stopped"` // pmc ended it (--duration, --interval-count)
	Counts     map[string]FakeValue   `json:"counts"`
	Intervals  []map[string]FakeValue `json:"intervals"` // cumulative values at each tick
}

// FakeValue is a scripted reading.
type FakeValue struct {
	Raw     uint64      `json:"raw"`
	Enabled uint64      `json:"enabled"`
	Running uint64      `json:"running"`
	Error   string      `json:"error"`
	CPUs    []FakeValue `json:"cpus"`
	// Reads are the periodic reads of a multiplexed counter before this final value, each
	// cumulative [raw, enabled, running]: the run's bound is computed from them as from a
	// kernel session's (not for -I intervals).
	Reads [][3]uint64 `json:"reads"`
}

// ErrFakeNotSupported is what a scripted "error" reads as.
var ErrFakeNotSupported = errors.New("event not supported (fake backend)")

// Fake is the deterministic Backend.
type Fake struct{ Spec FakeSpec }

// ParseFakeSpec decodes a FakeSpec, rejecting unknown fields so typos fail loudly.
func ParseFakeSpec(data []byte) (FakeSpec, error) {
	var s FakeSpec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("fake spec: %w", err)
	}
	if len(s.Runs) == 0 {
		return s, errors.New("fake spec: no runs")
	}
	return s, nil
}

func (Fake) Name() string { return "fake" }

func (f Fake) Begin(_ context.Context, req *Request, run int) (Session, error) {
	if len(f.Spec.Runs) == 0 {
		return nil, errors.New("fake spec: no runs")
	}
	r := f.Spec.Runs[run%len(f.Spec.Runs)]
	s := &fakeSession{req: req, run: r, done: make(chan struct{})}
	if req.Interval > 0 {
		n := len(r.Intervals)
		if req.IntervalCount > 0 && req.IntervalCount < n {
			n = req.IntervalCount
		}
		s.ticks = make(chan time.Duration, n)
		for i := 1; i <= n; i++ {
			s.ticks <- time.Duration(i) * req.Interval
		}
		close(s.ticks)
		s.pending = n
	}
	return s, nil
}

type fakeSession struct {
	req     *Request
	run     FakeRun
	ticks   chan time.Duration
	pending int // ticks not yet read
	reads   int
	done    chan struct{}
}

func (s *fakeSession) Start() error {
	if s.pending == 0 {
		close(s.done)
	}
	return nil
}

// Read returns the next interval snapshot while ticks are pending, then the final counts.
// Done closes once every tick has been read, so the interval loop sees each of them.
func (s *fakeSession) Read() ([]Reading, error) {
	vals := s.run.Counts
	if s.pending > 0 {
		vals = s.run.Intervals[s.reads]
		s.reads++
		s.pending--
		if s.pending == 0 {
			close(s.done)
		}
	}
	var out []Reading
	for i, ev := range s.req.Events {
		v, ok := vals[ev.Name]
		switch {
		case !ok:
			out = append(out, Reading{Event: i, CPU: -1, Err: fmt.Errorf("%w: %q not in spec", ErrFakeNotSupported, ev.Name)})
		case v.Error == "group-too-large":
			out = append(out, Reading{Event: i, CPU: -1, Err: ErrGroupTooLarge})
		case v.Error != "":
			out = append(out, Reading{Event: i, CPU: -1, Err: fmt.Errorf("%w: %s", ErrFakeNotSupported, v.Error)})
		case len(v.CPUs) > 0:
			for c, cv := range v.CPUs {
				out = append(out, Reading{Event: i, CPU: c, Value: value(cv)})
			}
		default:
			out = append(out, Reading{Event: i, CPU: -1, Value: value(v)})
		}
	}
	return out, nil
}

// Final is the run's final reading, each counter with the uncertainty of its scripted reads.
func (s *fakeSession) Final() ([]Reading, error) {
	rs, err := s.Read()
	if err != nil || s.req.NoBound {
		return rs, err
	}
	for i := range rs {
		if rs[i].Err != nil {
			continue
		}
		v, ok := s.run.Counts[s.req.Events[rs[i].Event].Name]
		if ok && len(v.CPUs) > 0 && rs[i].CPU >= 0 && rs[i].CPU < len(v.CPUs) {
			v = v.CPUs[rs[i].CPU]
		}
		if !ok || len(v.Reads) == 0 {
			continue
		}
		var sl []slice
		var prev [3]uint64
		for _, x := range append(v.Reads, [3]uint64{v.Raw, v.Enabled, v.Running}) {
			if x[1] > prev[1] && x[0] >= prev[0] && x[2] >= prev[2] {
				sl = append(sl, slice{c: x[0] - prev[0], e: x[1] - prev[1], r: x[2] - prev[2]})
			}
			prev = x
		}
		rs[i].Mux = uncertainty(sl)
	}
	return rs, nil
}

func value(v FakeValue) perfevent.Value {
	return perfevent.Value{Raw: v.Raw, Enabled: v.Enabled, Running: v.Running}
}

func (s *fakeSession) Ticks() <-chan time.Duration {
	if s.ticks == nil {
		return nil
	}
	return s.ticks
}

func (s *fakeSession) Done() <-chan struct{} { return s.done }

func (s *fakeSession) Outcome() (Outcome, error) {
	sec := func(x float64) time.Duration { return time.Duration(x * 1e9) }
	return Outcome{ExitStatus: s.run.ExitStatus, Signal: s.run.Signal, Elapsed: sec(s.run.ElapsedSec),
		User: sec(s.run.UserSec), Sys: sec(s.run.SysSec), MaxRSSKB: s.run.MaxRSSKB, Stopped: s.run.Stopped}, nil
}

func (s *fakeSession) Close() error { return nil }

func (s *fakeSession) Notes() []string { return nil }

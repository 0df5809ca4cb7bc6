package metrics

import (
	"strings"

	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
)

// Rates gives every counted event that no metric in have is printed beside what perf stat
// prints for it: a clock (task-clock, cpu-clock, with any modifier) its "CPUs utilized"
// (clock time over wall time), any other event its rate per second of the measured tasks'
// CPU time (task-clock, else cpu-clock), as "/sec" (the writers scale it to K/sec, M/sec).
// Events of one CPU are rated by that CPU's clock. elapsedSec is the wall time.
func Rates(counts []result.Count, elapsedSec float64, have []result.Metric) []result.Metric {
	claimed := map[string]bool{}
	for _, m := range have {
		claimed[key(m.Event, m.CPU)] = true
	}
	clock := map[int]float64{} // CPU -> seconds of task-clock (preferred) or cpu-clock
	for _, c := range counts {
		if k := clockKind(c); k != "" && c.Status == result.Counted {
			if _, ok := clock[c.CPU]; !ok || k == "task-clock" {
				clock[c.CPU] = c.Scaled / 1e9
			}
		}
	}
	var out []result.Metric
	for _, c := range counts {
		if c.Status != result.Counted || claimed[key(c.Event, c.CPU)] {
			continue
		}
		claimed[key(c.Event, c.CPU)] = true
		m := result.Metric{Event: c.Event, CPU: c.CPU, Together: true, Valid: true}
		if clockKind(c) != "" {
			if elapsedSec <= 0 {
				continue
			}
			m.Name, m.Unit, m.Value = "cpus_utilized", "CPUs utilized", c.Scaled/1e9/elapsedSec
			if c.CPU >= 0 {
				m.Value = c.Scaled / 1e9 / elapsedSec
			}
			out = append(out, m)
			continue
		}
		sec, ok := clock[c.CPU]
		if !ok || sec <= 0 {
			continue
		}
		m.Name, m.Unit, m.Value = rateName(c.Event), UnitPerSec, c.Scaled/sec
		m.Bound = scaledBound(c.Bound, 1/sec) // the clock is a software event, never multiplexed
		out = append(out, m)
	}
	return out
}

func key(event string, cpu int) string { return event + "\x00" + string(rune(cpu+1)) }

// clockKind is "task-clock" or "cpu-clock" for those software clocks, whatever the modifier.
func clockKind(c result.Count) string {
	if c.Encoding.Type != perfevent.TypeSoftware {
		return ""
	}
	switch c.Encoding.Config {
	case perfevent.SWTaskClock:
		return "task-clock"
	case perfevent.SWCPUClock:
		return "cpu-clock"
	}
	return ""
}

// rateName names the rate of an event: "minor_faults_per_sec".
func rateName(event string) string {
	b := baseName(event)
	if s, ok := events.LookupSymbol(b); ok {
		b = s.Name
	}
	return strings.NewReplacer("-", "_", "/", "_", ":", "_", "=", "_", ",", "_").Replace(b) + "_per_sec"
}

// scaledBound is b for a value k times the count's.
func scaledBound(b *result.Bound, k float64) *result.Bound {
	if b == nil || !b.Known() {
		return b
	}
	return &result.Bound{Pct: b.Pct, Abs: b.Abs * k, Reads: b.Reads}
}

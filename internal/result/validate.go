package result

import (
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Validate checks what a file of this model claims against what a measurement can be:
// times are not negative, a counter did not run longer than it was enabled, units scale by
// a finite number. A file that fails was not written by pmc, or was edited: it is refused
// rather than printed.
func (r *Stat) Validate() error {
	bad := func(field string, v any) error {
		return fmt.Errorf("impossible value %s = %v: not a measurement", field, v)
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{"elapsed_sec", r.ElapsedSec}, {"elapsed_stddev_sec", r.ElapsedStd}, {"user_sec", r.UserSec}, {"sys_sec", r.SysSec}} {
		if !inRange(t.v, maxSeconds) {
			return bad(t.name, t.v)
		}
	}
	if r.Repeat < 0 || r.Completed < 0 {
		return bad("repeat", r.Repeat)
	}
	for i, run := range r.Runs {
		for _, v := range []float64{run.ElapsedSec, run.UserSec, run.SysSec} {
			if !inRange(v, maxSeconds) {
				return bad(fmt.Sprintf("runs[%d] elapsed_sec, user_sec or sys_sec", i), v)
			}
		}
		for _, c := range run.Counts {
			if err := checkCount(c); err != nil {
				return fmt.Errorf("runs[%d] %q: %w", i, c.Event, err)
			}
		}
	}
	for _, iv := range r.Intervals {
		if !inRange(iv.TimeSec, maxSeconds) {
			return bad("intervals[].time_sec", iv.TimeSec)
		}
		for _, c := range iv.Counts {
			if err := checkCount(c); err != nil {
				return fmt.Errorf("interval at %gs %q: %w", iv.TimeSec, c.Event, err)
			}
		}
	}
	for _, x := range r.Summary {
		for _, v := range []float64{x.Mean, x.RawMean, x.Stddev, x.Min, x.Max} {
			if !inRange(v, maxValue) {
				return bad(fmt.Sprintf("summary %q mean, stddev, min or max", x.Event), v)
			}
		}
	}
	for _, m := range r.Metrics {
		if math.IsNaN(m.Value) || math.Abs(m.Value) > maxValue {
			return bad(fmt.Sprintf("metric %q", m.Name), m.Value)
		}
	}
	return nil
}

// Bounds of what a measurement can be, so that a hostile file cannot make pmc print a
// 309-digit number: no measurement lasts 30 years, and no count or rate comes near 1e40
// (2^64 counts scaled a million times by multiplexing, per nanosecond, is 2e34).
const (
	maxSeconds = 1e9
	maxValue   = 1e40
)

// inRange reports whether v is a number from 0 to limit.
func inRange(v, limit float64) bool { return v >= 0 && v <= limit }

func checkCount(c Count) error {
	switch {
	case c.Running > c.Enabled:
		return fmt.Errorf("impossible value: running %d ns > enabled %d ns", c.Running, c.Enabled)
	case !inRange(c.Scaled, maxValue):
		return fmt.Errorf("impossible value: scaled %v", c.Scaled)
	case c.UnitScale < 0 || math.IsNaN(c.UnitScale) || math.IsInf(c.UnitScale, 0):
		return fmt.Errorf("impossible value: unit_scale %v", c.UnitScale)
	}
	return nil
}

// Sanitize replaces control characters in every text of r (event names, units, messages,
// the command) with a visible escape, so that a saved file cannot drive the terminal it is
// printed on (an ESC sequence in an event name recolours it).
func (r *Stat) Sanitize() {
	s := func(p *string) { *p = Printable(*p) }
	for i := range r.Command {
		s(&r.Command[i])
	}
	s(&r.Mode)
	s(&r.Backend)
	for i := range r.Notes {
		s(&r.Notes[i])
	}
	counts := func(cs []Count) {
		for i := range cs {
			c := &cs[i]
			s(&c.Event)
			s(&c.Unit)
			s(&c.Error)
			s(&c.Encoding.PMU)
			s(&c.Encoding.Raw)
		}
	}
	for i := range r.Runs {
		s(&r.Runs[i].Signal)
		counts(r.Runs[i].Counts)
	}
	for i := range r.Intervals {
		counts(r.Intervals[i].Counts)
	}
	for i := range r.Summary {
		x := &r.Summary[i]
		s(&x.Event)
		s(&x.Unit)
		s(&x.Error)
		s(&x.Encoding.PMU)
		s(&x.Encoding.Raw)
	}
	for i := range r.Metrics {
		m := &r.Metrics[i]
		s(&m.Name)
		s(&m.Unit)
		s(&m.Event)
		s(&m.Warning)
	}
}

// Printable is s with every control character (and invalid UTF-8) written as a Go escape.
func Printable(s string) string {
	clean := true
	for _, c := range s {
		if unicode.IsControl(c) || c == unicode.ReplacementChar {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if unicode.IsControl(c) || c == unicode.ReplacementChar {
			q := fmt.Sprintf("%+q", string(c))
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// PrintableLines is Printable for each line of s: its line breaks are kept.
func PrintableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}

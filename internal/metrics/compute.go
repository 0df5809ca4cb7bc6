package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// DefaultMinRunningPct is the running share below which a scaled count is called an
// extrapolation rather than a measurement.
const DefaultMinRunningPct = 5

// Options tune Compute.
type Options struct {
	// IssueWidth is the most instructions per cycle the core can issue (see IssueWidth);
	// a metric with Issue "ipc" above it, or "cpi" below its inverse, gets a warning. 0 skips it.
	IssueWidth float64
	// MinRunningPct: operands that ran less than this share of their enabled time get a
	// warning. 0 means DefaultMinRunningPct.
	MinRunningPct float64
	// SkipMissing leaves out metrics with an operand that is absent from the counts (not
	// requested at all), as perf's default output shows IPC only when instructions and cycles
	// were counted. Operands that were requested but not supported or not counted still
	// produce an invalid metric with the reason.
	SkipMissing bool
	// Match, when set, also finds an operand's counted row by encoding: on a CPU where
	// cache-misses and L1-dcache-load-misses are both L1D_CACHE_REFILL, a metric over
	// cache-misses reads the row counted as L1-dcache-load-misses, and cycles:u counts for
	// cycles. A row spelled like the operand is preferred. Nil matches spellings only.
	Match *Matcher
}

// Matcher identifies events by what the kernel counts (see Machine.Canon), modifiers aside.
type Matcher struct {
	Resolve Resolver
	Canon   func(Encoding) Encoding
}

// Key is the counter behind an encoding, privilege filter ignored.
func (mt *Matcher) Key(e Encoding) Encoding {
	if mt.Canon != nil {
		e = mt.Canon(e)
	}
	e.Mods = ""
	return e
}

// OperandKey is the Key of a metric operand; ok is false when it does not resolve.
func (mt *Matcher) OperandKey(ev string) (Encoding, bool) {
	e, err := mt.Resolve(ev)
	if err != nil {
		return Encoding{}, false
	}
	return mt.Key(e), true
}

// row is one counted event, from a Summary or a Count.
type row struct {
	event    string
	group    int
	cpu      int
	status   result.Status
	value    float64 // scaled, in raw units (ns for clocks)
	enc      result.Encoding
	enabled  uint64
	running  uint64
	errorMsg string
	counted  string        // the event as counted, when the row stands for an operand spelled otherwise
	bound    *result.Bound // how far value may be off (a multiplexed count); nil when exact
}

func (r row) full() bool { return r.running > 0 && r.running >= r.enabled }

func (r row) runningPct() float64 {
	if r.enabled == 0 {
		return 0
	}
	return 100 * float64(r.running) / float64(r.enabled)
}

// times are the values of the tool events (in ns, as perf reports them).
type times struct {
	elapsed, user, sys float64
	unscaled           bool // --no-scale: multiplexed counts were not extrapolated
}

// Compute evaluates the named metrics over r.Summary: once for the aggregated rows (CPU -1),
// or once per CPU when the summary holds per-CPU rows. duration_time, user_time and
// system_time come from the Result's wall clock and rusage unless they were counted.
func (s *Set) Compute(r *result.Stat, names []string, opt Options) []result.Metric {
	rows := make([]row, len(r.Summary))
	for i, x := range r.Summary {
		rows[i] = row{event: x.Event, group: x.Group, cpu: x.CPU, status: x.Status, value: x.Mean,
			enabled: x.Enabled, running: x.Running, errorMsg: x.Error, enc: x.Encoding, bound: x.Bound}
	}
	return s.compute(rows, times{r.ElapsedSec * 1e9, r.UserSec * 1e9, r.SysSec * 1e9, !r.Scaled}, names, opt)
}

// ComputeCounts evaluates the named metrics over one run's or one interval's counts;
// elapsedSec is that run's or interval's wall time (the value of duration_time). Counts are
// taken as scaled (Count.Scaled).
func (s *Set) ComputeCounts(counts []result.Count, elapsedSec float64, names []string, opt Options) []result.Metric {
	rows := make([]row, len(counts))
	for i, x := range counts {
		rows[i] = row{event: x.Event, group: x.Group, cpu: x.CPU, status: x.Status, value: x.Scaled,
			enabled: x.Enabled, running: x.Running, errorMsg: x.Error, enc: x.Encoding, bound: x.Bound}
	}
	return s.compute(rows, times{elapsed: elapsedSec * 1e9}, names, opt)
}

// Compute builds a Set from defs and evaluates all of them over r.
func Compute(r *result.Stat, defs []Def, opt Options) ([]result.Metric, error) {
	s, err := NewSet(defs...)
	if err != nil {
		return nil, err
	}
	return s.Compute(r, s.names(), opt), nil
}

func (s *Set) compute(rows []row, t times, names []string, opt Options) []result.Metric {
	if opt.MinRunningPct == 0 {
		opt.MinRunningPct = DefaultMinRunningPct
	}
	var cpus []int
	for _, r := range rows {
		if !slices.Contains(cpus, r.cpu) {
			cpus = append(cpus, r.cpu)
		}
	}
	if len(cpus) == 0 {
		cpus = []int{-1}
	}
	var out []result.Metric
	for _, cpu := range cpus {
		var mine []row
		for _, r := range rows {
			if r.cpu == cpu {
				mine = append(mine, r)
			}
		}
		for _, name := range names {
			if _, ok := s.Def(name); !ok {
				continue
			}
			m := s.computeOne(name, mine, cpu, t, opt)
			if opt.SkipMissing && !m.Valid && strings.HasSuffix(m.Warning, missingSuffix) {
				continue
			}
			out = append(out, m)
		}
	}
	return out
}

func (s *Set) computeOne(name string, rows []row, cpu int, t times, opt Options) result.Metric {
	d, _ := s.Def(name)
	events := s.Events(name)
	m := result.Metric{Name: name, Unit: d.Unit, Event: d.Event, CPU: cpu}
	if m.Event == "" && len(events) > 0 {
		m.Event = events[0]
	}

	chosen, problem := pickRows(events, matching(rows, events, opt.Match), t)
	if problem != "" {
		m.Warning = problem
		return m
	}
	if r, ok := chosen[m.Event]; ok && r.counted != "" && r.counted != m.Event {
		m.Event = r.counted // counted under another name: point at the row as printed
	}
	m.Together = together(chosen, t.unscaled)

	v, err := s.Eval(name, func(ev string) (float64, error) {
		if r, ok := chosen[ev]; ok {
			return r.value, nil
		}
		return 0, &Error{Msg: "unknown name " + quoteName(ev), Err: ErrUnknownName}
	})
	if err != nil {
		msg := err.Error()
		var pe *Error
		if errors.As(err, &pe) {
			msg = pe.Msg
		}
		m.Warning = "undefined: " + msg
		return m
	}
	m.Value, m.Valid = v, true
	m.Bound = s.propagate(name, chosen, v)

	var warn []string
	if d.Max > 0 && v > d.Max*(1+1e-12) {
		warn = append(warn, fmt.Sprintf("implausible: %.2f%s exceeds %g%s", v, sep(d.Unit), d.Max, sep(d.Unit)))
	}
	if opt.IssueWidth > 0 {
		switch {
		case d.Issue == "ipc" && v > opt.IssueWidth*(1+1e-12):
			warn = append(warn, fmt.Sprintf("implausible: %.2f instructions per cycle on a core that issues at most %g", v, opt.IssueWidth))
		case d.Issue == "cpi" && v*opt.IssueWidth < 1-1e-12:
			warn = append(warn, fmt.Sprintf("implausible: %.2f cycles per instruction on a core that issues at most %g per cycle", v, opt.IssueWidth))
		}
	}
	if !m.Together {
		w := "not measured together: " + runningList(events, chosen)
		if t.unscaled {
			w += " and the counts are not scaled (--no-scale), so they cover different spans"
		}
		warn = append(warn, w)
	}
	for _, ev := range events {
		if r, ok := chosen[ev]; ok && r.enabled > 0 && r.runningPct() < opt.MinRunningPct {
			if t.unscaled {
				warn = append(warn, fmt.Sprintf("%s ran only %.2f%% of the time and is not scaled", ev, r.runningPct()))
			} else {
				warn = append(warn, fmt.Sprintf("%s ran only %.2f%% of the time; its scaled count is an extrapolation", ev, r.runningPct()))
			}
		}
	}
	m.Warning = strings.Join(warn, "; ")
	return m
}

func sep(unit string) string {
	if unit == "%" || unit == "" {
		return unit
	}
	return " " + unit
}

const missingSuffix = " was not counted; add it to the events"

// matching gives each operand its candidate rows: those spelled like it (or through a perf
// alias), else, with a Matcher, those that count the same event. The rows are returned with
// event set to the operand they stand for; rows matching no operand are dropped.
func matching(rows []row, events []string, mt *Matcher) []row {
	var out []row
	for _, ev := range events {
		n := len(out)
		for _, r := range rows {
			if sameEvent(r.event, ev) {
				r.counted = r.event
				r.event = ev
				out = append(out, r)
			}
		}
		if len(out) > n || mt == nil || isToolEvent(ev) {
			continue
		}
		k, ok := mt.OperandKey(ev)
		if !ok {
			continue
		}
		for _, r := range rows {
			if r.enc.Type == k.Type && r.enc.Config == k.Config && r.enc.Config1 == k.Config1 && r.enc.Config2 == k.Config2 ||
				mt.Key(Encoding{Type: r.enc.Type, Config: r.enc.Config, Config1: r.enc.Config1, Config2: r.enc.Config2}) == k {
				r.counted = r.event
				r.event = ev
				out = append(out, r)
			}
		}
	}
	return out
}

// pickRows chooses, for every operand, the row to read. Counter events come from one group
// holding all of them when there is one (the one that ran longest); otherwise each from its
// longest-running row. It returns a reason when an operand has no usable row.
func pickRows(events []string, rows []row, t times) (map[string]row, string) {
	chosen := map[string]row{}
	var hw []string
	for _, ev := range events {
		var best *row
		var status result.Status
		errMsg := ""
		for i := range rows {
			r := &rows[i]
			if !sameEvent(r.event, ev) {
				continue
			}
			if r.status != result.Counted {
				if status == "" || r.status == result.NotSupported {
					status, errMsg = r.status, r.errorMsg
				}
				continue
			}
			if best == nil || r.runningPct() > best.runningPct() {
				best = r
			}
		}
		switch {
		case best != nil:
			chosen[ev] = *best
			if NeedsCounter(ev) {
				hw = append(hw, ev)
			}
		case status == "" && isToolEvent(ev):
			chosen[ev] = toolRow(ev, t)
		case status == result.NotSupported:
			if errMsg != "" {
				return nil, fmt.Sprintf("%s <not supported>: %s", ev, errMsg)
			}
			return nil, ev + " <not supported>"
		case status == result.NotCounted:
			return nil, ev + " <not counted>: it never got a counter"
		default:
			return nil, ev + missingSuffix
		}
	}
	// Prefer one group that holds every counter operand.
	best, bestPct := -1, -1.0
	groups := map[int]bool{}
	for _, r := range rows {
		groups[r.group] = true
	}
	for g := range groups {
		pct, ok := 0.0, len(hw) > 0
		for _, ev := range hw {
			found := false
			for _, r := range rows {
				if sameEvent(r.event, ev) && r.group == g && r.status == result.Counted {
					found, pct = true, r.runningPct()
					break
				}
			}
			ok = ok && found
		}
		if ok && (pct > bestPct || pct == bestPct && g < best) {
			best, bestPct = g, pct
		}
	}
	if best >= 0 {
		for _, ev := range hw {
			for _, r := range rows {
				if sameEvent(r.event, ev) && r.group == best && r.status == result.Counted {
					chosen[ev] = r
					break
				}
			}
		}
	}
	return chosen, ""
}

// toolRow is a tool event's value, always "running".
func toolRow(ev string, t times) row {
	v := t.elapsed
	switch baseName(ev) {
	case "user_time":
		v = t.user
	case "system_time":
		v = t.sys
	}
	return row{event: ev, group: -1, status: result.Counted, value: v}
}

// together: the operands were counted over the same time. An operand that ran the whole
// time it was enabled (a software event, an event pinned on its own counter such as cycles
// on a dedicated cycle counter, or any event that was never multiplexed) was present
// throughout; the others must all come from one group, which shares its running time.
// So CPI from a pinned cycles count and a multiplexed instructions count is together, as in
// rpistat's design, while two operands multiplexed in different groups are not. Unscaled
// (--no-scale), a multiplexed count covers only its running time and a full one the whole
// run: they are not together.
func together(chosen map[string]row, unscaled bool) bool {
	group, first := 0, true
	multiplexed, full := false, false
	for _, r := range chosen {
		if r.group == -1 && r.enabled == 0 { // tool event: the whole run
			continue
		}
		if r.full() {
			full = true
			continue
		}
		multiplexed = true
		if first {
			group, first = r.group, false
		} else if r.group != group {
			return false
		}
	}
	return !(unscaled && multiplexed && full)
}

func runningList(events []string, chosen map[string]row) string {
	var parts []string
	for _, ev := range events {
		if r, ok := chosen[ev]; ok && r.enabled > 0 {
			parts = append(parts, fmt.Sprintf("%s ran %.2f%% (group %d)", ev, r.runningPct(), r.group))
		}
	}
	return strings.Join(parts, ", ")
}

// propagate carries the operands' bounds into the bound of metric name, whose value is v:
// each operand with a bound moves by its abs either way, the larger change of the value is
// its share, and the shares add (operands multiplexed together can err alike, so they are
// not assumed to cancel). nil when no operand has a bound; unknown when one has an unknown
// bound or its bound reaches a pole (a denominator whose interval holds zero).
func (s *Set) propagate(name string, chosen map[string]row, v float64) *result.Bound {
	var total float64
	reads := 0
	any := false
	for ev, r := range chosen {
		switch {
		case r.bound == nil:
			continue
		case !r.bound.Known():
			return result.NoBound(ev + ": " + r.bound.Unknown)
		}
		any = true
		if reads == 0 || r.bound.Reads < reads {
			reads = r.bound.Reads
		}
		share := 0.0
		var ends [2]float64
		for i, sign := range []float64{-1, 1} {
			w, err := s.Eval(name, func(e string) (float64, error) {
				x, ok := chosen[e]
				if !ok {
					return 0, &Error{Msg: "unknown name " + quoteName(e), Err: ErrUnknownName}
				}
				if e == ev {
					return x.value + sign*r.bound.Abs, nil
				}
				return x.value, nil
			})
			if err != nil || math.IsInf(w, 0) || math.IsNaN(w) {
				return result.NoBound(ev + "'s bound takes the metric to a pole")
			}
			ends[i] = w
			share = math.Max(share, math.Abs(w-v))
		}
		// Between the ends of the operand's interval the metric must pass through v, or it
		// turned back on the way: a denominator's interval that holds zero (a/b with
		// b ± abs across 0) has finite ends and an unbounded metric between them.
		if lo, hi := min(ends[0], ends[1]), max(ends[0], ends[1]); v < lo-1e-9*math.Abs(v) || v > hi+1e-9*math.Abs(v) {
			return result.NoBound(ev + "'s bound takes the metric to a pole")
		}
		total += share
	}
	if !any {
		return nil
	}
	return result.NewBound(total, v, reads)
}

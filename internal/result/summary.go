package result

import "math"

// Summarize fills the Summary, the mean times and Completed of res from its runs (a result
// read from elsewhere, such as include/pmc.h's JSON, may lack them).
func Summarize(res *Stat) {
	var a Accumulator
	for _, r := range res.Runs {
		a.Add(r)
	}
	a.Fill(res)
}

// Accumulator summarizes runs one at a time in constant memory, so that -r 100000 needs no
// more memory than -r 2 when the runs themselves are not kept. Means and variances use
// Welford's method; each count slot is the same position in every run.
type Accumulator struct {
	n       int
	elapsed welford
	user    float64
	sys     float64
	slots   []slot
}

type slot struct {
	first   Count // the slot's identity and, until a run counts it, its status and reason
	scaled  welford
	raw     welford
	min     float64
	max     float64
	enabled uint64
	running uint64
	err     Count // the first run without a value: its reason and error
	bound   boundSum
}

// boundSum accumulates the runs' bounds of one count: the mean count's error is the mean of
// the runs' errors, and runs of one workload may err alike, so the bound of the mean is the
// mean of the bounds (a run that was not multiplexed adds an exact 0).
type boundSum struct {
	any     bool    // some run had a bound
	abs     float64 // their sum
	reads   int     // the fewest reads one stood on
	unknown string  // a multiplexed run without a bound: the mean has none either
}

func (b *boundSum) add(c *Bound) {
	switch {
	case c == nil:
		return
	case !c.Known():
		if b.unknown == "" {
			b.unknown = c.Unknown
		}
	case !b.any || c.Reads < b.reads:
		b.reads = c.Reads
	}
	b.any = true
	b.abs += c.Abs
}

// of is the bound of the mean of n runs with mean value v.
func (b *boundSum) of(n int, v float64) *Bound {
	switch {
	case !b.any || n == 0:
		return nil
	case b.unknown != "":
		return NoBound(b.unknown)
	}
	return NewBound(b.abs/float64(n), v, b.reads)
}

// welford accumulates a mean and the sum of squared deviations.
type welford struct {
	n    int
	mean float64
	m2   float64
}

func (w *welford) add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m2 += d * (x - w.mean)
}

// std is the sample standard deviation (n-1), 0 for fewer than two values.
func (w welford) std() float64 {
	if w.n < 2 {
		return 0
	}
	return math.Sqrt(w.m2 / float64(w.n-1))
}

// Add takes one run into the summary.
func (a *Accumulator) Add(r Run) {
	a.n++
	a.elapsed.add(r.ElapsedSec)
	a.user += r.UserSec
	a.sys += r.SysSec
	if a.n == 1 {
		a.slots = make([]slot, len(r.Counts))
		for i, c := range r.Counts {
			a.slots[i].first = c
		}
	}
	for i := range a.slots {
		if i >= len(r.Counts) {
			continue
		}
		c, s := r.Counts[i], &a.slots[i]
		s.enabled += c.Enabled
		s.running += c.Running
		switch {
		case c.Status == Counted:
			if s.scaled.n == 0 || c.Scaled < s.min {
				s.min = c.Scaled
			}
			if s.scaled.n == 0 || c.Scaled > s.max {
				s.max = c.Scaled
			}
			s.scaled.add(c.Scaled)
			s.raw.add(float64(c.Raw))
			s.bound.add(c.Bound)
		case s.err.Error == "" && s.first.Error == "":
			s.err = c
		}
	}
}

// Runs is the number of runs added.
func (a *Accumulator) Runs() int { return a.n }

// Fill writes the summary into res: Summary, ElapsedSec/Std, UserSec, SysSec, Completed.
func (a *Accumulator) Fill(res *Stat) {
	res.Completed = a.n
	if a.n == 0 {
		return
	}
	n := float64(a.n)
	res.ElapsedSec, res.ElapsedStd = a.elapsed.mean, a.elapsed.std()
	res.UserSec, res.SysSec = a.user/n, a.sys/n
	res.Summary = make([]Summary, len(a.slots))
	for i, sl := range a.slots {
		c := sl.first
		s := Summary{Event: c.Event, Group: c.Group, Planned: c.Planned, CPU: c.CPU, TID: c.TID, Thread: c.Thread, Unit: c.Unit, UnitScale: c.UnitScale, Encoding: c.Encoding,
			Status: c.Status, Reason: c.Reason, Error: c.Error, Enabled: sl.enabled, Running: sl.running}
		if s.Error == "" && sl.err.Error != "" {
			s.Error, s.Reason = sl.err.Error, sl.err.Reason
		}
		s.Runs = sl.scaled.n
		switch {
		case s.Runs > 0:
			s.Status = Counted
			s.Mean, s.Stddev = sl.scaled.mean, sl.scaled.std()
			s.RawMean = sl.raw.mean
			s.Min, s.Max = sl.min, sl.max
			s.Bound = sl.bound.of(s.Runs, s.Mean)
			if s.Mean != 0 && s.Runs > 1 {
				// perf's "+- x%": the standard error of the mean relative to the mean.
				s.VarPct = 100 * s.Stddev / math.Sqrt(float64(s.Runs)) / s.Mean
			}
		case s.Status == Counted:
			s.Status = NotCounted
			if s.Reason == "" {
				s.Reason = NeverRan
			}
		}
		res.Summary[i] = s
	}
}

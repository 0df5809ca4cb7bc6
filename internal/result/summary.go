package result

import "math"

// Summarize fills the Summary and the mean times of res from its runs (pmc stat does it after
// measuring; a result read from elsewhere, such as include/pmc.h's JSON, may lack them).
func Summarize(res *Stat) {
	if len(res.Runs) == 0 {
		return
	}
	var el []float64
	var user, sys float64
	for _, r := range res.Runs {
		el = append(el, r.ElapsedSec)
		user += r.UserSec
		sys += r.SysSec
	}
	n := float64(len(res.Runs))
	res.ElapsedSec, res.ElapsedStd = meanStd(el)
	res.UserSec, res.SysSec = user/n, sys/n
	res.Summary = summarize(res.Runs)
}

// summarize aggregates each count slot (same position in every run) over the runs.
func summarize(runs []Run) []Summary {
	first := runs[0].Counts
	out := make([]Summary, len(first))
	for i, c := range first {
		s := Summary{Event: c.Event, Group: c.Group, CPU: c.CPU, Unit: c.Unit, UnitScale: c.UnitScale, Encoding: c.Encoding,
			Status: c.Status, Reason: c.Reason, Error: c.Error}
		var vals, raws []float64
		for _, r := range runs {
			if i >= len(r.Counts) {
				continue
			}
			rc := r.Counts[i]
			s.Enabled += rc.Enabled
			s.Running += rc.Running
			if rc.Status == Counted {
				vals = append(vals, rc.Scaled)
				raws = append(raws, float64(rc.Raw))
			} else if s.Error == "" {
				s.Error, s.Reason = rc.Error, rc.Reason
			}
		}
		s.Runs = len(vals)
		switch {
		case len(vals) > 0:
			s.Status = Counted
			s.Mean, s.Stddev = meanStd(vals)
			s.RawMean, _ = meanStd(raws)
			s.Min, s.Max = vals[0], vals[0]
			for _, v := range vals {
				s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
			}
			if s.Mean != 0 && len(vals) > 1 {
				// perf's "+- x%": the standard error of the mean relative to the mean.
				s.VarPct = 100 * s.Stddev / math.Sqrt(float64(len(vals))) / s.Mean
			}
		case s.Status == Counted:
			s.Status = NotCounted
			if s.Reason == "" {
				s.Reason = NeverRan
			}
		}
		out[i] = s
	}
	return out
}

// meanStd returns the mean and the sample standard deviation (n-1) of xs.
func meanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

package result

// Reading is one counter as the kernel gives it (read_format with both times), or the change
// of one between two reads: the events counted, the time it was enabled and the part of that
// time it was on a counter.
type Reading struct {
	Raw, Enabled, Running uint64
}

// Status is the one rule of what a reading means, for every command: a counter that was
// never on the PMU while it was enabled (time_running == 0) has no value, whatever its
// time_enabled, and is not counted; otherwise it is counted. Callers that know more (an
// event refused at open, a group too large) decide before they ask.
func (r Reading) Status() Status {
	if r.Running == 0 {
		return NotCounted
	}
	return Counted
}

// Scaled is perf's estimate of the whole enabled time: Raw * Enabled / Running when the
// counter shared the PMU (Running < Enabled), Raw when it ran all the time, 0 when it was
// not counted (Status says so; a 0 here is never "zero events").
func (r Reading) Scaled() float64 {
	switch {
	case r.Running == 0:
		return 0
	case r.Running < r.Enabled:
		return float64(r.Raw) * float64(r.Enabled) / float64(r.Running)
	}
	return float64(r.Raw)
}

// Multiplexed reports whether the counter shared the PMU: its value is an estimate.
func (r Reading) Multiplexed() bool { return r.Running > 0 && r.Running < r.Enabled }

// Sub is the change from an earlier reading p.
func (r Reading) Sub(p Reading) Reading {
	return Reading{Raw: r.Raw - p.Raw, Enabled: r.Enabled - p.Enabled, Running: r.Running - p.Running}
}

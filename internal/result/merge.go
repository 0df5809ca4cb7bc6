package result

// Merged returns the summary as the text, the report and compare print it: every event the
// user named is its own row, as perf prints it (three copies of page-faults are three rows,
// each its own count), and the copies of one event that pmc's metric planner added (Planned:
// instructions beside each ratio's numerator) are pooled into one row. JSON and CSV keep
// every counter as counted.
//
// When the user named the event too, the user's row stands as counted and the planner's
// copies are left out of it: the row is the count perf would print. Otherwise the planner's
// copies are pooled: the planner puts two groups on the PMU together only when they fit
// together, so its copies of one event never count at the same time, and pooled they sampled
// the union of their running times. The pooled count is their raw counts over their summed
// running time, scaled to the time enabled; its running share is their shares summed. Each
// copy's bound (Count.Bound) is pooled with the same weights.
func Merged(summary []Summary) []Summary {
	type key struct {
		event    string
		cpu, tid int
	}
	first := map[key]int{} // the row an event's planner copies go to
	var out []Summary
	var copies [][]Summary // per row of out: the planner's copies pooled into it
	for _, s := range summary {
		k := key{s.Event, s.CPU, s.TID}
		i, seen := first[k]
		switch {
		case seen && s.Planned:
			if out[i].Planned {
				copies[i] = append(copies[i], s)
			}
			continue // the user's own row stands as counted
		case !seen:
			first[k] = len(out)
		}
		out = append(out, s)
		copies = append(copies, []Summary{s})
	}
	for i := range out {
		if len(copies[i]) > 1 {
			out[i] = pool(copies[i])
		}
	}
	return out
}

// pool combines the planner's copies of one event (see Merged).
func pool(cs []Summary) Summary {
	m := cs[0]
	m.Groups = nil
	var counted []Summary
	for _, c := range cs {
		m.Groups = append(m.Groups, c.Group)
		if c.Status == Counted {
			counted = append(counted, c)
		}
	}
	if len(counted) == 0 {
		return m // none has a value: the first says why
	}
	groups := m.Groups
	for _, c := range counted {
		if c.Running >= c.Enabled {
			m = c // a copy that ran all the time is the count itself
			m.Groups = groups
			return m
		}
	}
	m = counted[0]
	m.Groups = groups
	var raw float64
	var running, enabled uint64
	for _, c := range counted {
		raw += c.RawMean
		running += c.Running
		enabled = max(enabled, c.Enabled)
	}
	m.RawMean, m.Enabled = raw, enabled
	m.Running = min(running, enabled) // copies that overlapped cannot run more than all the time
	if running > 0 {
		m.Mean = raw * float64(enabled) / float64(running)
	}
	// The pooled count is the copies' estimates weighted by their running times, and so is
	// its error; copies of one event may err alike, so their bounds add (never less). A
	// multiplexed copy without a bound (none was computed: --no-bound) leaves the pool
	// without one, and one whose bound is unknown leaves it unknown.
	var bound float64
	reads := 0
	var none, unknown bool
	for _, c := range counted {
		m.Min, m.Max = min(m.Min, c.Min), max(m.Max, c.Max)
		m.VarPct = max(m.VarPct, c.VarPct) // the copies' worst: runs are not kept to do better
		m.Runs = min(m.Runs, c.Runs)
		switch {
		case c.Bound == nil:
			none = true
		case !c.Bound.Known():
			unknown, m.Bound = true, c.Bound
		default:
			bound += c.Bound.Abs * float64(c.Running) / float64(running)
			reads = max(reads, c.Bound.Reads)
		}
	}
	switch {
	case none:
		m.Bound = nil
	case !unknown:
		m.Bound = NewBound(bound, m.Mean, reads)
	}
	m.Stddev = m.VarPct / 100 * m.Mean
	return m
}

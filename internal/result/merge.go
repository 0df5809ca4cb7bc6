package result

// Merged returns the summary with every event counted more than once (the same event on the
// same CPU in several groups, as the metric planner puts instructions beside each ratio's
// numerator) shown once. Such copies ran at different times, so together they sampled more
// of the run: the merged count is the copies' raw counts over their summed running time,
// scaled to the time enabled, and its running share is theirs summed (at most 100%). The
// text and the report print each event once this way (rpistat prints each event once); JSON
// and CSV keep every counter as counted.
func Merged(summary []Summary) []Summary {
	type key struct {
		event    string
		cpu, tid int
	}
	first := map[key]int{}
	var out []Summary
	for _, s := range summary {
		k := key{s.Event, s.CPU, s.TID}
		i, seen := first[k]
		if !seen {
			first[k] = len(out)
			out = append(out, s)
			continue
		}
		if len(out[i].Groups) == 0 {
			out[i].Groups = []int{out[i].Group}
		}
		out[i] = merge(out[i], s)
		out[i].Groups = append(out[i].Groups, s.Group)
	}
	return out
}

// merge combines two copies of one event.
func merge(a, b Summary) Summary {
	switch {
	case b.Status != Counted:
		return a
	case a.Status != Counted:
		return b
	}
	m := a
	raw := a.RawMean + b.RawMean
	running := a.Running + b.Running
	enabled := max(a.Enabled, b.Enabled)
	m.RawMean = raw
	m.Running = min(running, enabled)
	if running > 0 {
		m.Mean = raw * float64(enabled) / float64(running)
	}
	m.Min, m.Max = min(a.Min, b.Min), max(a.Max, b.Max)
	m.VarPct = max(a.VarPct, b.VarPct) // the copies' worst: runs are not kept to do better
	m.Stddev = m.VarPct / 100 * m.Mean
	m.Runs = min(a.Runs, b.Runs)
	return m
}

package stat

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strconv"

	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
)

// Options tunes Measure beyond the Request.
type Options struct {
	// OnInterval, when set, receives each -I interval as soon as it is read.
	OnInterval func(result.Interval)
	// KeepRuns keeps every measured run in Stat.Runs (a JSON document lists them); without it
	// only the last run is kept, and the summary is accumulated as the runs end, so memory
	// does not grow with -r.
	KeepRuns bool
	// KeepIntervals keeps every interval in Stat.Intervals; without it they only go to
	// OnInterval, so memory does not grow with the length of an -I run.
	KeepIntervals bool
	// Pre and Post run before and after every run, warmups included (perf's --pre and
	// --post); an error from either stops the measurement.
	Pre, Post func() error
}

// Measure measures req with b: warmups, then Repeat counted runs, and returns the result. A
// workload that fails or is killed still yields its counts; err is reserved for failures of
// the measurement itself (e.g. permission denied), in which case the partial result so far
// is returned too. An interrupted -r (SIGINT) ends with the runs completed so far.
func Measure(ctx context.Context, b Backend, req *Request, opt Options) (*result.Stat, error) {
	if req.Repeat < 1 {
		req.Repeat = 1
	}
	res := &result.Stat{
		Schema:  result.SchemaVersion,
		Command: req.Command,
		Mode:    string(req.Mode),
		PIDs:    req.PIDs,
		Threads: req.Threads,
		Cgroup:  req.Cgroup,

		Aggregation: req.Aggregation,
		CPUs:        req.CPUs,
		AllCPUs:     req.AllCPUs,
		Scaled:      !req.NoScale,
		Repeat:      req.Repeat,
		Backend:     b.Name(),
	}
	var acc result.Accumulator
	defer func() { acc.Fill(res) }()
	if h, ok := b.(Holder); ok && req.Warmup+req.Repeat > 1 {
		defer h.Hold(req.Events)()
	}
	for i := 0; i < req.Warmup+req.Repeat; i++ {
		if err := ctx.Err(); err != nil && i > 0 {
			res.Interrupted = true
			break // Ctrl-C between runs: keep what we have
		}
		if opt.Pre != nil {
			if err := opt.Pre(); err != nil {
				return res, err
			}
		}
		run, ivs, err := runOnce(ctx, b, req, i, opt, res)
		if err != nil {
			return res, err
		}
		var postErr error
		if opt.Post != nil {
			postErr = opt.Post()
		}
		if i < req.Warmup {
			if postErr != nil {
				return res, postErr
			}
			if run.Signal == "SIGINT" && req.Mode == Launch {
				res.Interrupted = true
				break // interrupted while warming up: nothing was measured
			}
			continue
		}
		run.Index = i - req.Warmup
		acc.Add(run)
		if opt.KeepRuns || len(res.Runs) == 0 {
			res.Runs = append(res.Runs, run)
		} else {
			res.Runs[0] = run // the last run: its exit status and signal
		}
		if opt.KeepIntervals {
			res.Intervals = append(res.Intervals, ivs...)
		}
		res.ExitStatus = run.ExitStatus
		if postErr != nil {
			return res, postErr // this run's counts are kept
		}
		if run.Signal != "" && req.Mode == Launch && run.Signal == "SIGINT" {
			res.Interrupted = acc.Runs() < req.Repeat
			break // the user interrupted: do not start the next repeat
		}
	}
	return res, nil
}

func runOnce(ctx context.Context, b Backend, req *Request, idx int, opt Options, res *result.Stat) (result.Run, []result.Interval, error) {
	s, err := b.Begin(ctx, req, idx)
	if err != nil {
		return result.Run{}, nil, err
	}
	defer s.Close()
	for _, n := range s.Notes() {
		if !slices.Contains(res.Notes, n) {
			res.Notes = append(res.Notes, n)
		}
	}
	if err := s.Start(); err != nil {
		return result.Run{}, nil, err
	}
	var ivs []result.Interval // kept only with opt.KeepIntervals
	nIvs := 0
	emit := func(iv result.Interval) {
		nIvs++
		if opt.KeepIntervals {
			ivs = append(ivs, iv)
		}
		if opt.OnInterval != nil {
			opt.OnInterval(iv)
		}
	}
	var prev []Reading
	counted := idx >= req.Warmup
	ticks := s.Ticks()
loop:
	for {
		select {
		case <-s.Done():
			break loop
		case t, ok := <-ticks:
			if !ok {
				ticks = nil
				continue
			}
			cur, err := cutRead(s)
			if err != nil {
				return result.Run{}, ivs, err
			}
			if counted {
				emit(result.Interval{Run: idx - req.Warmup, TimeSec: t.Seconds(), Counts: counts(req, delta(cur, prev))})
			}
			prev = cur
		}
	}
	// A last partial interval, as perf prints when the workload ends between ticks; not when
	// --interval-count ended the run, which asked for exactly that many. Read before the
	// final reading, which ends the periodic reads: its bound covers the interval.
	full := req.IntervalCount > 0 && nIvs >= req.IntervalCount
	var last []Reading
	if req.Interval > 0 && counted && !full { // also when it ends before the first tick, as perf
		if last, err = cutRead(s); err != nil {
			return result.Run{}, ivs, err
		}
	}
	var final []Reading
	if f, ok := s.(interface{ Final() ([]Reading, error) }); ok {
		final, err = f.Final()
	} else {
		final, err = s.Read()
	}
	if err != nil {
		return result.Run{}, ivs, err
	}
	out, err := s.Outcome()
	if err != nil {
		return result.Run{}, ivs, err
	}
	run := result.Run{
		ElapsedSec:    out.Elapsed.Seconds(),
		ExitStatus:    out.ExitStatus,
		Signal:        out.Signal,
		UserSec:       out.User.Seconds(),
		SysSec:        out.Sys.Seconds(),
		MaxRSSKB:      out.MaxRSSKB,
		MaxRSSBelowKB: out.MaxRSSBelowKB,
		Stopped:       out.Stopped,
		Abandoned:     out.Abandoned,
		Counts:        counts(req, final),
	}
	if last != nil {
		iv := result.Interval{Run: idx - req.Warmup, TimeSec: out.Elapsed.Seconds(), Counts: counts(req, delta(last, prev))}
		if hasProgress(iv.Counts) {
			emit(iv)
		}
	}
	return run, ivs, nil
}

// cutRead reads every counter for an interval: with its bound when the session keeps
// periodic reads (Cut), else plainly.
func cutRead(s Session) ([]Reading, error) {
	if c, ok := s.(interface{ Cut() ([]Reading, error) }); ok {
		return c.Cut()
	}
	return s.Read()
}

// threadName is perf's --per-thread label, "comm-tid" ("" without --per-thread).
func threadName(req *Request, tid int) string {
	if !req.PerThread || tid == 0 {
		return ""
	}
	name := ""
	if req.ThreadName != nil {
		name = req.ThreadName(tid)
	}
	if name == "" {
		name = "?"
	}
	return name + "-" + strconv.Itoa(tid)
}

func hasProgress(cs []result.Count) bool {
	for _, c := range cs {
		if c.Enabled > 0 {
			return true
		}
	}
	return false
}

// delta subtracts prev from cur slot by slot (prev nil: cur itself).
func delta(cur, prev []Reading) []Reading {
	if prev == nil {
		return cur
	}
	out := make([]Reading, len(cur))
	for i, r := range cur {
		out[i] = r
		if i < len(prev) && r.Err == nil {
			p := prev[i].Value
			out[i].Value.Raw = r.Value.Raw - p.Raw
			out[i].Value.Enabled = r.Value.Enabled - p.Enabled
			out[i].Value.Running = r.Value.Running - p.Running
		}
	}
	return out
}

// counts turns readings into Counts: aggregated over CPUs unless PerCPU, scaled unless NoScale.
func counts(req *Request, rs []Reading) []result.Count {
	type key struct{ ev, cpu, tid int }
	var order []key
	type slot struct {
		result.Count
		notCounted bool
		mux        []*Uncertainty // the slots' uncertainties summed into this count
	}
	acc := map[key]*slot{}
	first := map[int]int{} // --per-socket/--per-core: CPU -> its group's first CPU
	if req.Aggregation != nil {
		for _, g := range req.Aggregation.Groups {
			for _, c := range g.CPUs {
				first[c] = g.CPUs[0]
			}
		}
	}
	for _, r := range rs {
		if r.Event < 0 || r.Event >= len(req.Events) {
			continue
		}
		k := key{r.Event, -1, 0}
		if req.PerThread {
			k.tid = r.TID
		}
		if req.PerCPU {
			k.cpu = r.CPU
			if f, ok := first[r.CPU]; ok {
				k.cpu = f
			}
		}
		c, ok := acc[k]
		if !ok {
			ev := req.Events[r.Event]
			name := ev.Name
			if r.UserOnly {
				name += ":u"
			}
			group, leader := ev.Group, ev.Leader
			if r.Ungrouped {
				group, leader = ungroupedGroup(req, r.Event), false
			}
			c = &slot{Count: result.Count{Event: name, Group: group, Leader: leader, Planned: ev.Planned, CPU: k.cpu, TID: k.tid, Thread: threadName(req, k.tid), Unit: ev.Unit, UnitScale: ev.Scale,
				Encoding: result.Encoding{PMU: ev.PMU, Type: ev.Attr.Type, Config: ev.Attr.Config,
					Config1: ev.Attr.Config1, Config2: ev.Attr.Config2, Raw: ev.Resolved}}}
			acc[k] = c
			order = append(order, k)
		}
		if r.Err != nil {
			if c.Error == "" {
				c.Error, c.Reason = r.Err.Error(), reasonOf(r.Err)
				c.notCounted = errors.Is(r.Err, ErrGroupTooLarge)
			}
			continue
		}
		c.Raw += r.Value.Raw
		c.Enabled += r.Value.Enabled
		c.Running += r.Value.Running
		c.mux = append(c.mux, r.Mux)
		c.Error, c.Reason = "", "" // at least one slot opened
	}
	switch {
	case req.PerThread:
		// perf's --per-thread order: each thread's events in turn.
		sort.SliceStable(order, func(i, j int) bool {
			if order[i].tid != order[j].tid {
				return order[i].tid < order[j].tid
			}
			return order[i].ev < order[j].ev
		})
	case req.PerCPU && req.Aggregation != nil:
		// perf's --per-socket/--per-core order: each socket's or core's events in turn.
		sort.SliceStable(order, func(i, j int) bool {
			if order[i].cpu != order[j].cpu {
				return order[i].cpu < order[j].cpu
			}
			return order[i].ev < order[j].ev
		})
	case req.PerCPU:
		// perf's -A order: each event on every CPU in turn, not each CPU's events.
		sort.SliceStable(order, func(i, j int) bool {
			if order[i].ev != order[j].ev {
				return order[i].ev < order[j].ev
			}
			return order[i].cpu < order[j].cpu
		})
	}
	out := make([]result.Count, 0, len(order))
	for _, k := range order {
		c := acc[k]
		switch {
		case c.Error != "" && c.notCounted:
			c.Status = result.NotCounted
		case c.Error != "" && c.Enabled == 0:
			c.Status = result.NotSupported
		default:
			rd := c.Reading()
			if c.Status = rd.Status(); c.Status != result.Counted {
				c.Reason = result.NeverRan
				break
			}
			c.Scaled = rd.Scaled()
			switch {
			case req.NoScale:
				c.Scaled = float64(c.Raw)
			case rd.Multiplexed():
				c.Bound = bound(c.mux, c.Scaled)
			}
		}
		out = append(out, c.Count)
	}
	return quietThreads(req, out)
}

// reasonOf turns the error of an event that could not be counted into the result's Reason.
func reasonOf(err error) result.Reason {
	switch {
	case errors.Is(err, ErrGroupTooLarge):
		return result.GroupTooLarge
	case errors.Is(err, ErrGroupLeader):
		return result.GroupLeader
	case errors.Is(err, perfevent.ErrPermission):
		return result.Permission
	case errors.Is(err, perfevent.ErrBusy):
		return result.Busy
	case errors.Is(err, perfevent.ErrInvalid):
		return result.Invalid
	}
	return result.Unsupported
}

// ErrGroupLeader marks the members of a group whose leader the kernel refused: they are not
// supported with it, and say which leader.
var ErrGroupLeader = errors.New("its group's leader was refused")

// ErrGroupTooLarge marks the members of a group the kernel refused as a whole because it needs
// more counters than the PMU has: they are reported as not counted, with the reason, never 0.
var ErrGroupTooLarge = errors.New("group not counted: it needs more counters than the PMU has at once; split it into smaller groups")

package statrecord

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
	"github.com/pmc-tools/pmc/internal/result"
)

// Mode is the result's mode for counts read back from a recording (no rusage, which perf
// stat record does not keep).
const Mode = "recorded"

// Read reads a perf stat record file, perf's or pmc's, into one run of counts: a row per
// event (per CPU with the recording's per-CPU aggregation, per thread with its per-thread
// one), titled with the recording's command line ("pipe" for a pipe, as perf says).
func Read(f *perfdata.File) (*result.Stat, error) {
	r := &reader{f: f, byID: map[uint64]int{}, aggr: perfdata.AggrGlobal, scaled: true, units: make([]unit, len(f.Events))}
	for i, ev := range f.Events {
		for _, id := range ev.IDs {
			r.byID[id] = i
		}
		r.units[i] = unit{ev.Unit, ev.Scale}
	}
	rs := f.Records()
	for {
		rec, err := rs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := r.add(rec); err != nil {
			return nil, err
		}
	}
	if !r.final {
		if r.n == 0 {
			return nil, errors.New("no counts in it (not a perf stat record file: pmc report reads recordings of samples)")
		}
		return nil, errors.New("its final round is missing: the recording did not finish")
	}
	return r.result(), nil
}

type unit struct {
	name  string
	scale float64
}

// key is one row: an event on a CPU (-1: all) and thread (-1: all).
type key struct{ ev, cpu, thread int }

type reader struct {
	f       *perfdata.File
	byID    map[uint64]int
	units   []unit
	threads []perfdata.MappedThread
	aggr    uint64
	scaled  bool
	sums    map[key]*result.Count
	order   []key
	n       int // STAT records
	elapsed float64
	final   bool
}

func (r *reader) add(rec perfdata.Record) error {
	switch rec := rec.(type) {
	case *perfdata.EventUpdate:
		if i, ok := r.byID[rec.ID]; ok {
			switch rec.Kind {
			case perfdata.EventUpdateUnit:
				r.units[i].name = rec.Unit
			case perfdata.EventUpdateScale:
				r.units[i].scale = rec.Scale
			}
		}
	case *perfdata.ThreadMap:
		r.threads = rec.Threads
	case *perfdata.StatConfig:
		if v, ok := rec.Term(perfdata.StatTermAggrMode); ok {
			r.aggr = v
		}
		if v, ok := rec.Term(perfdata.StatTermScale); ok {
			r.scaled = v != 0
		}
		switch r.aggr {
		case perfdata.AggrGlobal, perfdata.AggrNone, perfdata.AggrThread:
		default:
			return fmt.Errorf("counts aggregated per socket, die, core or node (perf's mode %d) are not read yet", r.aggr)
		}
	case *perfdata.Stat:
		i, ok := r.byID[rec.ID]
		if !ok {
			return fmt.Errorf("a count of id %d, which no event has", rec.ID)
		}
		r.count(i, rec)
	case *perfdata.StatRound:
		if rec.Type != perfdata.StatRoundFinal {
			return errors.New("an interval recording (perf stat record -I): not read yet; pmc stat -I prints the intervals as they come")
		}
		r.final, r.elapsed = true, float64(rec.Time)/1e9
	}
	return nil
}

// count adds one counter to its row.
func (r *reader) count(i int, s *perfdata.Stat) {
	r.n++
	k := key{i, -1, -1}
	switch r.aggr {
	case perfdata.AggrNone:
		k.cpu = int(s.CPU)
	case perfdata.AggrThread:
		k.thread = int(s.Thread)
	}
	if r.sums == nil {
		r.sums = map[key]*result.Count{}
	}
	c := r.sums[k]
	if c == nil {
		c = &result.Count{}
		r.sums[k] = c
		r.order = append(r.order, k)
	}
	c.Raw += s.Value
	c.Enabled += s.Enabled
	c.Running += s.Running
}

// result is the run: the rows in the events' order, an event without a counter once, as
// <not supported>.
func (r *reader) result() *result.Stat {
	f := r.f
	res := &result.Stat{Schema: result.SchemaVersion, Mode: Mode, Command: f.Features.Cmdline, Scaled: r.scaled,
		Repeat: 1, Completed: 1, Backend: "perf.data"}
	if f.Pipe { // perf says so whatever the pipe's command line feature says
		res.Command = []string{"pipe"}
	}
	group := make([]int, len(f.Events)) // perf's {a,b}: the leader's index
	for i := range group {
		group[i] = i
	}
	for _, g := range f.Features.Groups {
		for j := g.Leader; j < g.Leader+g.Members && j < len(group); j++ {
			group[j] = g.Leader
		}
	}
	run := result.Run{ElapsedSec: r.elapsed}
	for i := range f.Events {
		base := result.Count{Event: fromperf.EventName(f, i), Group: group[i], Leader: group[i] == i && groupSize(f, i) > 1, CPU: -1, Unit: r.units[i].name, UnitScale: r.units[i].scale,
			Encoding: result.Encoding{Type: f.Events[i].Attr.Type, Config: f.Events[i].Attr.Config,
				Config1: f.Events[i].Attr.Config1, Config2: f.Events[i].Attr.Config2}}
		found := false
		for _, k := range r.order {
			if k.ev != i {
				continue
			}
			found = true
			c := base
			c.CPU, c.Raw, c.Enabled, c.Running = k.cpu, r.sums[k].Raw, r.sums[k].Enabled, r.sums[k].Running
			if k.thread >= 0 && k.thread < len(r.threads) {
				t := r.threads[k.thread]
				c.TID, c.Thread = int(t.PID), t.Comm+"-"+strconv.FormatInt(t.PID, 10)
			}
			run.Counts = append(run.Counts, status(c, r.scaled))
		}
		if !found {
			base.Status, base.Reason, base.Error = result.NotSupported, result.Unsupported, "the recording has no counter of it"
			run.Counts = append(run.Counts, base)
		}
	}
	res.Runs = []result.Run{run}
	result.Summarize(res)
	return res
}

// status sets a count's status and its value scaled for multiplexing, as pmc stat does.
// result.Reading is the one rule for both; --no-scale keeps the raw count.
func status(c result.Count, scaled bool) result.Count {
	rd := c.Reading()
	if c.Status = rd.Status(); c.Status == result.NotCounted {
		c.Reason = result.NeverRan
		return c
	}
	c.Scaled = float64(c.Raw)
	if scaled {
		c.Scaled = rd.Scaled()
	}
	return c
}

// groupSize is the number of events in the group event i leads (1: none).
func groupSize(f *perfdata.File, i int) int {
	for _, g := range f.Features.Groups {
		if g.Leader == i {
			return g.Members
		}
	}
	return 1
}

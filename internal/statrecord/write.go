package statrecord

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
)

// Write writes the counts of res's last run of events (as opened) to w as perf stat record
// writes them: a perf.data file (w must seek), or perf's pipe format with pipe.
// fs are the header features (where and how it was recorded); HEADER_STAT is added.
func Write(w io.Writer, pipe bool, res *result.Stat, events []stat.Event, fs perfdata.Features) error {
	if len(res.Runs) == 0 {
		return errors.New("no run to record")
	}
	if res.Aggregation != nil {
		return fmt.Errorf("per-%s counts are not recorded: record without --per-%[1]s (perf stat report -i FILE --per-%[1]s sums them)", res.Aggregation.By)
	}
	run := res.Runs[len(res.Runs)-1]
	l, err := lay(run.Counts, events)
	if err != nil {
		return err
	}
	evs := make([]perfdata.Event, len(events))
	for i, ev := range events {
		if evs[i].Attr, err = fileAttr(ev.Attr); err != nil {
			return err
		}
		evs[i].Name, evs[i].IDs = ev.Name, l.ids[i]
	}
	fs.Stat = true
	var wr *perfdata.Writer
	if pipe {
		wr, err = perfdata.NewPipeWriter(w, evs, fs)
	} else if ws, ok := w.(io.WriteSeeker); ok {
		wr, err = perfdata.NewWriter(ws, evs)
	} else {
		return errors.New("a perf.data file is written in place: give a seekable file, or write the pipe format")
	}
	if err != nil {
		return err
	}
	wr.Features = fs // a file's go at its end
	for _, r := range l.records(events, pipe, res.Scaled, run.ElapsedSec) {
		if err := wr.Write(r); err != nil {
			return err
		}
	}
	return wr.Close()
}

// layout is where each count goes: its id (one per count, as perf has one per counter),
// the thread map and CPU map its Stat record indexes, the aggregation.
type layout struct {
	ids     [][]uint64 // per event
	stats   []*perfdata.Stat
	threads []perfdata.MappedThread
	cpus    []int
	aggr    uint64
}

func lay(counts []result.Count, events []stat.Event) (*layout, error) {
	l := &layout{ids: make([][]uint64, len(events)), aggr: perfdata.AggrGlobal}
	perThread, perCPU := false, false
	for _, c := range counts {
		perThread = perThread || c.Thread != ""
		perCPU = perCPU || c.CPU >= 0
		if !slices.Contains(l.cpus, c.CPU) {
			l.cpus = append(l.cpus, c.CPU)
		}
	}
	slices.Sort(l.cpus)
	switch {
	case perThread:
		l.aggr = perfdata.AggrThread
	case perCPU:
		l.aggr = perfdata.AggrNone
	}
	thread := map[int]int{}
	if !perThread {
		l.threads = []perfdata.MappedThread{{PID: -1}}
	}
	for _, c := range counts {
		i := slices.IndexFunc(events, func(ev stat.Event) bool { return ev.Name == c.Event && ev.Group == c.Group })
		if i < 0 {
			return nil, fmt.Errorf("a count of %q (group %d) names no event counted", c.Event, c.Group)
		}
		if c.Status == result.NotSupported {
			continue // perf has no counter for it: its attribute has no id
		}
		ti := 0
		if perThread {
			var ok bool
			if ti, ok = thread[c.TID]; !ok {
				ti = len(l.threads)
				thread[c.TID] = ti
				comm, _, _ := strings.Cut(c.Thread, "-") // perf's "comm-tid" label
				l.threads = append(l.threads, perfdata.MappedThread{PID: int64(c.TID), Comm: comm})
			}
		}
		id := uint64(len(l.stats) + 1)
		l.ids[i] = append(l.ids[i], id)
		l.stats = append(l.stats, &perfdata.Stat{ID: id, CPU: int32(c.CPU), Thread: uint32(ti),
			Value: c.Raw, Enabled: c.Enabled, Running: c.Running})
	}
	return l, nil
}

// records are the data records in perf's order: the events' units and scales (and names,
// in a pipe, which has no EVENT_DESC for perf), the maps, the config, the counts, the round.
func (l *layout) records(events []stat.Event, pipe, scaled bool, elapsedSec float64) []perfdata.Record {
	var out []perfdata.Record
	for i, ev := range events {
		if len(l.ids[i]) == 0 {
			continue
		}
		id := l.ids[i][0]
		if ev.Unit != "" {
			scale := cmp.Or(ev.Scale, 1)
			out = append(out, &perfdata.EventUpdate{Kind: perfdata.EventUpdateUnit, ID: id, Unit: ev.Unit},
				&perfdata.EventUpdate{Kind: perfdata.EventUpdateScale, ID: id, Scale: scale})
		}
		if pipe {
			out = append(out, &perfdata.EventUpdate{Kind: perfdata.EventUpdateName, ID: id, Name: ev.Name})
		}
	}
	scale := uint64(0)
	if scaled {
		scale = 1
	}
	out = append(out, &perfdata.ThreadMap{Threads: l.threads}, &perfdata.CPUMap{CPUs: l.cpus},
		&perfdata.StatConfig{Terms: []perfdata.StatTerm{{Tag: perfdata.StatTermAggrMode, Value: l.aggr},
			{Tag: perfdata.StatTermInterval}, {Tag: perfdata.StatTermScale, Value: scale}}})
	for _, s := range l.stats {
		out = append(out, s)
	}
	return append(out, &perfdata.StatRound{Type: perfdata.StatRoundFinal, Time: uint64(math.Round(elapsedSec * 1e9))})
}

// fileAttr is the attribute as the kernel was given it, in perf.data's form, with
// PERF_SAMPLE_IDENTIFIER as perf stat record sets it (records of several events say theirs).
func fileAttr(a perfevent.Attr) (perfdata.Attr, error) {
	k, err := perfevent.Encode(a)
	if err != nil {
		return perfdata.Attr{}, err
	}
	return perfdata.Attr{Type: k.Type, Config: k.Config, SamplePeriod: k.Sample, SampleType: k.Sample_type | perfdata.SampleIdentifier,
		ReadFormat: k.Read_format, Flags: k.Bits, WakeupEvents: k.Wakeup, BPType: k.Bp_type, Config1: k.Ext1, Config2: k.Ext2}, nil
}

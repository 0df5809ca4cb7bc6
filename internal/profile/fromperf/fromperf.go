package fromperf

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// Build reads every record of f into a profile whose addresses res resolves (nil: none).
func Build(f *perfdata.File, res *symbol.Resolver) (*profile.Profile, error) {
	b := profile.NewBuilder(res)
	if err := Feed(f, b); err != nil {
		return nil, err
	}
	return b.Profile(), nil
}

// Feed reads every record of f into b, in perf report's order.
func Feed(f *perfdata.File, b *profile.Builder) error {
	c := &converter{f: f, b: b, buildIDs: map[string]string{}}
	for _, id := range f.Features.BuildIDs {
		if len(id.ID) > 0 {
			c.buildIDs[id.Filename] = hex.EncodeToString(id.ID)
		}
	}
	for i := range f.Events {
		b.Event(uint64(i), EventName(f, i))
	}
	c.timed = timed(f)
	for _, g := range f.Features.Groups {
		b.Group(g.Leader, g.Members, g.Name)
	}
	// perf's machine names the idle task before any record does.
	b.Comm(profile.CommEvent{Pid: 0, Tid: 0, Comm: "swapper"})
	if dwarfEvents(f) && b.Chains() {
		c.unw = newUnwinder(f, b)
	}
	return c.run()
}

// Tasks reads the task records of f (COMM, FORK, EXIT) into t, in perf report's order.
func Tasks(f *perfdata.File, t *profile.Tasks) error {
	c := &converter{f: f, tasks: t, timed: timed(f)}
	return c.run()
}

// timed says whether every record of f has a time, which orders them.
func timed(f *perfdata.File) bool {
	for _, ev := range f.Events {
		if ev.Attr.SampleType&perfdata.SampleTime != 0 && (ev.Attr.SampleIDAll() || len(f.Events) == 1) {
			return true
		}
	}
	return false
}

// run reads every record, in order, to the converter's end.
func (c *converter) run() error {
	rs := c.f.Records()
	c.rs = rs
	for {
		r, err := rs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		c.add(r)
	}
	c.flush(^uint64(0))
	if c.unw != nil {
		for _, n := range c.unw.notes() {
			c.b.Note(n)
		}
	}
	return nil
}

// EventName is the name of event i: the file's event description, else the name perf
// gives the attribute's type, config and modifiers.
func EventName(f *perfdata.File, i int) string {
	ev := f.Events[i]
	if ev.Name != "" {
		return ev.Name
	}
	if n := attrName(ev.Attr); n != "" {
		return n
	}
	for _, s := range events.Symbols() {
		if s.Class != events.Tool && s.Type == ev.Attr.Type && s.Config == ev.Attr.Config {
			if len(s.Aliases) > 0 && s.Name == "cpu-cycles" {
				return "cycles"
			}
			return s.Name
		}
	}
	return fmt.Sprintf("raw 0x%x (type %d)", ev.Attr.Config, ev.Attr.Type)
}

// converter queues timed records the way perf's ordered_events does: a FINISHED_ROUND
// delivers, sorted by time, every queued record not later than the latest time seen
// before the previous round ended.
type converter struct {
	f        *perfdata.File
	rs       *perfdata.Records
	b        *profile.Builder
	tasks    *profile.Tasks // instead of b: the task records alone
	buildIDs map[string]string
	timed    bool
	q        queue
	seq      uint64
	maxTime  uint64 // latest time queued
	limit    uint64 // the next round flushes up to here
	branches []profile.RawBranch
	unw      *unwinder // --call-graph dwarf's samples
	lbr      []uint64  // --call-graph lbr's chain of the sample being read
	held     int       // bytes of user stack in queued samples
}

func (c *converter) add(r perfdata.Record) {
	if s, ok := r.(*perfdata.Sample); ok && c.tasks != nil {
		c.rs.Recycle(s) // the task records alone matter
		return
	}
	if _, ok := r.(*perfdata.FinishedRound); ok {
		c.flush(c.limit)
		c.limit = c.maxTime
		return
	}
	t, ok := c.time(r)
	if !ok {
		c.deliver(r)
		return
	}
	c.seq++
	if s, ok := r.(*perfdata.Sample); ok && (s.User == nil || c.unw == nil) {
		// A sample waits in the queue's compact form, its record reused at once. One to
		// unwind waits whole: its stack is read when it is delivered, against the maps
		// of its time.
		c.q.addSample(t, c.seq, c.event(s))
		c.rs.Recycle(s)
	} else {
		c.q.add(t, c.seq, r)
	}
	if t > c.maxTime {
		c.maxTime = t
	}
	c.bound(r)
}

// time is the record's timestamp when the file gives every record one.
func (c *converter) time(r perfdata.Record) (uint64, bool) {
	if !c.timed {
		return 0, false
	}
	switch r := r.(type) {
	case *perfdata.Sample:
		return r.Time, true
	case *perfdata.Mmap:
		return r.Origin.Time, true
	case *perfdata.Comm:
		return r.Origin.Time, true
	case *perfdata.Task:
		return r.Origin.Time, true
	case *perfdata.Lost:
		return r.Origin.Time, true
	case *perfdata.LostSamples:
		return r.Origin.Time, true
	}
	return 0, false
}

func (c *converter) flush(limit uint64) {
	all := c.q.sort()
	n, _ := slices.BinarySearchFunc(all, limit, func(x queued, limit uint64) int {
		if x.t <= limit {
			return -1
		}
		return 1
	})
	for _, x := range all[:n] {
		if x.slot < 0 {
			c.b.Sample(c.q.takeSample(x))
			continue
		}
		r := c.q.take(x)
		c.release(r)
		c.deliver(r)
	}
	c.q.drop(n)
}

func (c *converter) deliver(r perfdata.Record) {
	if c.tasks != nil {
		c.task(r)
		return
	}
	b := c.b
	switch r := r.(type) {
	case *perfdata.Sample:
		c.b.Sample(c.event(r))
		c.rs.Recycle(r) // the Builder keeps nothing of it
	case *perfdata.Mmap:
		c.mmap(r)
	case *perfdata.Comm:
		b.Comm(profile.CommEvent{Pid: int(r.PID), Tid: int(r.TID), Comm: r.Comm, Exec: r.Misc&perfdata.MiscCommExec != 0})
	case *perfdata.Task:
		if r.Type == perfdata.RecordFork {
			b.Fork(profile.ForkEvent{Pid: int(r.PID), PPid: int(r.PPID), Tid: int(r.TID), PTid: int(r.PTID)})
		} else {
			b.Exit(int(r.PID), int(r.TID))
		}
	case *perfdata.Lost:
		b.Lost(r.Lost)
	case *perfdata.LostSamples:
		b.Lost(r.Lost)
	}
}

func (c *converter) task(r perfdata.Record) {
	switch r := r.(type) {
	case *perfdata.Comm:
		c.tasks.Comm(profile.CommEvent{Pid: int(int32(r.PID)), Tid: int(int32(r.TID)), Comm: r.Comm})
	case *perfdata.Task:
		if r.Type == perfdata.RecordFork {
			c.tasks.Fork(profile.ForkEvent{Pid: int(int32(r.PID)), PPid: int(int32(r.PPID)), Tid: int(int32(r.TID)), PTid: int(int32(r.PTID))})
		}
	}
}

// The mmap flags of MMAP2 and the misc bit of MMAP that mark a data (non-executable)
// mapping.
const (
	protExec     = 0x4
	miscMmapData = 1 << 13
)

func (c *converter) mmap(r *perfdata.Mmap) {
	if r.Type == perfdata.RecordMmap2 && r.Misc&perfdata.MiscMmapBuildID == 0 && r.Prot != 0 && r.Prot&protExec == 0 {
		return
	}
	if r.Misc&miscMmapData != 0 {
		return
	}
	mode := r.CPUMode()
	kernel := mode == perfdata.MiscKernel || mode == perfdata.MiscGuestKernel
	e := profile.MmapEvent{Pid: int(int32(r.PID)), Tid: int(int32(r.TID)), Start: r.Addr, Len: r.Len, Pgoff: r.Pgoff,
		Filename: r.Filename, Kernel: kernel}
	if len(r.BuildID) > 0 {
		e.BuildID = hex.EncodeToString(r.BuildID)
	} else if id, ok := c.buildIDs[r.Filename]; ok {
		e.BuildID = id
	} else if kernel {
		e.BuildID = c.buildIDs[symbol.KernelName]
	}
	c.b.Mmap(e)
}

// event is sample s as the Builder takes it; its Branches are valid until the next call.
func (c *converter) event(s *perfdata.Sample) profile.SampleEvent {
	attr := &perfdata.Attr{}
	if s.Event >= 0 && s.Event < len(c.f.Events) {
		attr = &c.f.Events[s.Event].Attr
	}
	period := s.Period
	if attr.SampleType&perfdata.SamplePeriod == 0 {
		period = attr.SamplePeriod
		if attr.Freq() || period == 0 {
			period = 1
		}
	}
	mode := s.CPUMode()
	var branches []profile.RawBranch
	if len(s.Branches) > 0 {
		branches = c.branches[:0]
		for _, b := range s.Branches {
			branches = append(branches, profile.RawBranch{From: b.From, To: b.To, Cycles: b.Cycles()})
		}
		c.branches = branches
	}
	chain := s.Callchain
	if c.unw != nil && s.User != nil {
		chain = c.unw.chainOf(s)
	}
	lbr := c.lbrChain(s, *attr)
	if lbr != nil {
		chain, branches = lbr, nil // a call stack, not branches to show
	}
	return profile.SampleEvent{Branches: branches, Pid: int(int32(s.PID)), Tid: int(int32(s.TID)), IP: s.IP, IPApart: lbr != nil,
		Kernel:    mode == perfdata.MiscKernel || mode == perfdata.MiscGuestKernel,
		Callchain: chain, Period: period, CPU: int(s.CPU), Time: s.Time, EventID: uint64(s.Event)}
}

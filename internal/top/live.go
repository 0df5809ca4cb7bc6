package top

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Target is what a Source samples: every task on its CPUs (the default), the threads of
// some processes (and the threads they start), or the tasks of a cgroup.
type Target struct {
	Pids   []int
	Cgroup string // a cgroup v2 directory
	CPUs   []int  // empty: every online CPU
}

// SourceOptions configure a Source.
type SourceOptions struct {
	Target
	Freq      uint64 // samples per second per CPU
	Callchain bool
	Machine   *host.Machine
	// Event is sampled; empty: cycles, or cpu-clock where the machine has no PMU (said in
	// Notes).
	Event string
}

// ringPages is each CPU's ring (256 KiB): top drains it at least every 100 ms.
const ringPages = 64

// Source samples the live machine: a counter per CPU (and per thread with Pids), one ring
// per CPU, drained on demand into records. Close releases everything.
type Source struct {
	Event  string   // the event sampled
	Notes  []string // what was changed from the request (the fallback to cpu-clock)
	CPUs   int
	o      SourceOptions
	cs     []*perfevent.Counter
	rings  []*perfevent.Ring
	poller *perfevent.Poller
	cgfd   int
	dec    decoder
	Errors int // corrupt rings seen

	pending []pendingRecord // Drain's records in time order, their bytes in buf
	buf     []byte
}

// pendingRecord is a record copied out of a ring: its time and where its bytes are in buf.
type pendingRecord struct {
	time   uint64
	off, n int
}

// eventAttr is the attribute of an event pmc top samples by name: perf's generic hardware
// and software events.
func eventAttr(name string) (perfevent.Attr, bool) {
	switch name {
	case "cycles", "cpu-cycles":
		return perfevent.Attr{Type: 0, Config: 0}, true
	case "instructions":
		return perfevent.Attr{Type: 0, Config: 1}, true
	case "cpu-clock":
		return perfevent.Attr{Type: 1, Config: 0}, true
	case "task-clock":
		return perfevent.Attr{Type: 1, Config: 1}, true
	}
	return perfevent.Attr{}, false
}

// EventNames are the events -e accepts.
func EventNames() []string {
	return []string{"cycles", "instructions", "cpu-clock", "task-clock"}
}

// Open starts sampling.
func Open(o SourceOptions) (*Source, error) {
	s := &Source{o: o, cgfd: -1}
	if err := s.open(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Source) open() error {
	cpus := s.o.CPUs
	if len(cpus) == 0 {
		cpus = s.o.Machine.PMUs.Online
	}
	if len(cpus) == 0 {
		return errors.New("no online CPU found in /sys/devices/system/cpu/online")
	}
	s.CPUs = len(cpus)
	var err error
	if s.poller, err = perfevent.NewPoller(); err != nil {
		return err
	}
	if s.o.Cgroup != "" {
		if s.cgfd, err = unix.OpenCgroupDir(s.o.Cgroup); err != nil {
			return fmt.Errorf("cgroup %s: %w (give a cgroup v2 directory, e.g. /sys/fs/cgroup/system.slice)", s.o.Cgroup, err)
		}
	}
	name := s.o.Event
	if name == "" {
		name = "cycles"
	}
	attr, ok := eventAttr(name)
	if !ok {
		return fmt.Errorf("-e %s: pmc top samples %s", name, strings.Join(EventNames(), ", "))
	}
	err = s.openAll(name, attr, cpus)
	if err != nil && s.o.Event == "" && errors.Is(err, perfevent.ErrNotSupported) {
		s.closeCounters()
		s.Notes = append(s.Notes, "no hardware PMU here (cycles not supported): sampling cpu-clock")
		name = "cpu-clock"
		attr, _ = eventAttr(name)
		err = s.openAll(name, attr, cpus)
	}
	s.Event = name
	return err
}

// openAll opens the event on every CPU (and task) with one ring per CPU.
func (s *Source) openAll(name string, base perfevent.Attr, cpus []int) error {
	tasks := []int{perfevent.AllTasks}
	if len(s.o.Pids) > 0 {
		tasks = nil
		for _, pid := range s.o.Pids {
			ts, err := s.o.Machine.Threads(pid)
			if err != nil {
				return fmt.Errorf("process %d: %w", pid, err)
			}
			tasks = append(tasks, ts...)
		}
	}
	a := base
	a.SamplePeriod, a.Freq = s.o.Freq, true
	a.SampleType = perfevent.SampleIP | perfevent.SampleTID | perfevent.SampleTime | perfevent.SampleCPU | perfevent.SamplePeriod
	if s.o.Callchain {
		a.SampleType |= perfevent.SampleCallchain
	}
	s.dec.chain = s.o.Callchain
	a.SampleIDAll, a.Disabled = true, true
	a.Inherit = len(s.o.Pids) > 0
	a.Mmap, a.Mmap2, a.Comm, a.CommExec, a.Task = true, true, true, true, true
	a.Watermark, a.WakeupEvents = true, uint32(ringPages*os.Getpagesize()/8)
	for _, cpu := range cpus {
		var ring *perfevent.Counter
		for _, tid := range tasks {
			var c *perfevent.Counter
			var err error
			if s.cgfd >= 0 {
				c, err = perfevent.OpenCgroup(name, a, s.cgfd, cpu, nil)
			} else {
				c, err = perfevent.Open(name, a, tid, cpu, nil)
			}
			if err != nil {
				return err
			}
			s.cs = append(s.cs, c)
			if ring != nil {
				if err := c.SetOutput(ring); err != nil {
					return err
				}
				continue
			}
			r, err := c.MapRing(ringPages)
			if err != nil {
				return err
			}
			s.rings = append(s.rings, r)
			if err := s.poller.Watch(c.FD()); err != nil {
				return err
			}
			ring = c
		}
	}
	return nil
}

// Start enables the counters.
func (s *Source) Start() {
	for _, c := range s.cs {
		c.Enable()
	}
}

// Wait blocks until a ring passes its mark, Wake is called or timeout passes.
func (s *Source) Wait(timeout time.Duration) (woken bool, err error) { return s.poller.Wait(timeout) }

// Wake ends the Wait in progress and every later one (from any goroutine): for the end.
func (s *Source) Wake() { s.poller.Wake() }

// Drain hands every record the rings hold to fn (valid during the call only), in time order
// across the CPUs' rings, as perf orders them: a task's fork is on one CPU's ring and its
// exec (its new name and mappings) may be on another's, and applied the other way round the
// fork would give the new program its parent's name and maps.
func (s *Source) Drain(fn func(perfdata.Record)) {
	s.pending, s.buf = s.pending[:0], s.buf[:0]
	for _, r := range s.rings {
		var last uint64
		_, err := r.Drain(func(rec []byte) error {
			t, ok := recordTime(rec)
			if !ok {
				t = last // no time of its own: it stays after the ring's record before it
			}
			last = t
			s.pending = append(s.pending, pendingRecord{time: t, off: len(s.buf), n: len(rec)})
			s.buf = append(s.buf, rec...)
			return nil
		})
		if err != nil {
			s.Errors++
		}
	}
	slices.SortStableFunc(s.pending, func(a, b pendingRecord) int { return cmp.Compare(a.time, b.time) })
	for _, p := range s.pending {
		x, err := s.dec.decode(s.buf[p.off : p.off+p.n])
		if err == nil && x != nil {
			fn(x)
		}
	}
}

// Synthesize hands fn the names and executable mappings of the tasks that exist now (or
// of the target processes), as perf top does before it samples: their samples get a name
// and a DSO.
func (s *Source) Synthesize(fn func(perfdata.Record)) {
	m := s.o.Machine
	pids := s.o.Pids
	if len(pids) == 0 {
		var err error
		if pids, err = m.Pids(); err != nil {
			return
		}
	}
	for _, pid := range pids {
		tids, err := m.Threads(pid)
		if err != nil {
			continue
		}
		for _, tid := range tids {
			if comm, _, err := m.Comm(tid); err == nil {
				fn(&perfdata.Comm{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordComm}, PID: uint32(pid), TID: uint32(tid), Comm: comm})
			}
		}
		maps, err := m.Maps(pid)
		if err != nil {
			continue
		}
		for _, mp := range maps {
			if !strings.Contains(mp.Perms, "x") || mp.Path == "" {
				continue
			}
			fn(&perfdata.Mmap{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordMmap2, Misc: perfdata.MiscUser},
				PID: uint32(pid), TID: uint32(pid), Addr: mp.Start, Len: mp.End - mp.Start, Pgoff: mp.Offset,
				Ino: mp.Inode, Prot: protExec, Filename: mp.Path})
		}
	}
}

func (s *Source) closeCounters() {
	for _, r := range s.rings {
		r.Close()
	}
	for _, c := range s.cs {
		c.Close()
	}
	s.rings, s.cs = nil, nil
}

// Close stops sampling and releases the counters, rings and poller.
func (s *Source) Close() {
	s.closeCounters()
	if s.poller != nil {
		s.poller.Close()
		s.poller = nil
	}
	if s.cgfd >= 0 {
		unix.Close(s.cgfd)
		s.cgfd = -1
	}
}

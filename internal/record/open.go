package record

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/unix"
)

// sampling turns a counting attribute into pmc record's sampling one; first is the event
// that also reports the tasks' maps, names, forks and exits.
func (s *Session) sampling(a perfevent.Attr, first bool) perfevent.Attr {
	a.SampleType = perfevent.SampleIP | perfevent.SampleTID | perfevent.SampleTime
	if s.freq > 0 {
		a.SamplePeriod, a.Freq = s.freq, true
		a.SampleType |= perfevent.SamplePeriod
	} else {
		// As perf: a fixed period is the attribute's, not each sample's. With
		// PERF_SAMPLE_PERIOD and a fixed period, the kernel writes a sample for every
		// software event (page-faults -c 100000 gave a sample per fault).
		a.SamplePeriod, a.Freq = s.req.Period, false
	}
	if s.req.Mode == System {
		a.SampleType |= perfevent.SampleCPU
	}
	if s.req.Callchain {
		a.SampleType |= perfevent.SampleCallchain
	}
	if s.req.UserStack > 0 {
		a = dwarfSampling(a, s.req.UserStack)
	}
	if len(s.events) > 1 {
		a.SampleType |= perfevent.SampleIdentifier
	}
	a.ReadFormat = 0
	a.SampleIDAll = true
	a.Disabled = true
	a.Inherit = s.req.Mode != System
	a.EnableOnExec = s.req.Mode == Launch
	a.Watermark, a.WakeupEvents = true, uint32(s.ringPages*os.Getpagesize()/4)
	a.Mmap, a.Mmap2, a.Comm, a.CommExec, a.Task = first, first, first, first, first
	if s.req.UserStack > 0 {
		// perf's unwinder reads a binary's .eh_frame_hdr where the process maps it, in
		// its read-only segment: --call-graph dwarf records the data mappings too.
		a.MmapData = first
	}
	return a
}

// clampFreq lowers -F to kernel.perf_event_max_sample_rate, which the kernel would refuse
// with EINVAL, and says so, as perf does.
func (s *Session) clampFreq() {
	s.freq = s.req.Freq
	if s.req.Period > 0 {
		s.freq = 0
		return
	}
	limit, err := s.k.Machine.MaxSampleRate()
	if err != nil || limit == 0 || s.freq <= limit {
		return
	}
	s.note("-F %d is above kernel.perf_event_max_sample_rate (%d Hz): sampling at %d Hz; "+
		"raise the limit with `sysctl -w kernel.perf_event_max_sample_rate=%d` (the kernel lowers it again when sampling interrupts take too long)",
		s.freq, limit, limit, s.freq)
	s.freq = limit
}

// checkAttached refuses processes that are not there or have exited, and watches the
// exits of the others from now on: a process that exits while its counters are being
// opened is then still seen to exit.
func (s *Session) checkAttached() error {
	for _, pid := range s.req.PIDs {
		state, _, err := s.k.Machine.Process(pid)
		switch {
		case errors.Is(err, host.ErrNoProcess):
			return fmt.Errorf("process %d: no such process", pid)
		case err == nil && state == 'Z':
			return exitedErr(pid)
		}
		ch, err := s.k.Gone(pid)
		if errors.Is(err, unix.ESRCH) {
			return exitedErr(pid)
		}
		if err != nil {
			return fmt.Errorf("watching process %d: %w", pid, err)
		}
		s.gone = append(s.gone, ch)
	}
	return nil
}

func exitedErr(pid int) error {
	return fmt.Errorf("process %d has exited (or is a zombie its parent has not reaped): nothing is left to sample", pid)
}

// targets are the tasks counters are opened on (with the process each belongs to): the
// workload, each thread of the attached processes, or every task (-1) of a CPU.
func (s *Session) targets() (tids, owners []int, err error) {
	switch s.req.Mode {
	case Launch:
		return []int{s.child.Pid()}, []int{s.child.Pid()}, nil
	case Attach:
		for _, pid := range s.req.PIDs {
			ts, err := s.k.Machine.Threads(pid)
			if errors.Is(err, host.ErrNoProcess) {
				return nil, nil, exitedErr(pid)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("process %d: %w", pid, err)
			}
			for _, t := range ts {
				tids, owners = append(tids, t), append(owners, pid)
			}
		}
		return tids, owners, nil
	}
	return []int{perfevent.AllTasks}, []int{0}, nil
}

// open opens every event on every target and CPU, maps one ring per CPU and sends every
// other counter of that CPU to it. The default event falls back (Request.Fallback) when
// it is not supported here.
func (s *Session) open() error {
	err := s.openEvents(s.req.Events)
	if err != nil && errors.Is(err, perfevent.ErrNotSupported) && len(s.req.Fallback) > 0 {
		s.closeCounters()
		s.note("no hardware PMU here (%s not supported): sampling %s instead", s.req.Events[0].Name, s.req.Fallback[0].Name)
		err = s.openEvents(s.req.Fallback)
	}
	return err
}

func (s *Session) openEvents(evs []Event) error {
	s.events = evs
	s.attrs = make([]perfevent.Attr, len(evs))
	for i, ev := range evs {
		s.attrs[i] = s.sampling(ev.Attr, i == 0)
	}
	tids, owners, err := s.targets()
	if err != nil {
		return err
	}
	s.ids = make([][]uint64, len(evs))
	gone := map[int]bool{}   // threads that exited before their counters were opened
	opened := map[int]bool{} // processes with a thread sampled
	for _, cpu := range s.cpus {
		var ring Counter
		for t, tid := range tids {
			for i := range evs {
				if gone[tid] {
					continue
				}
				c, err := s.openEvent(i, tid, cpu)
				if err != nil && s.req.Mode == Attach && isESRCH(err) {
					gone[tid] = true // a thread that exited meanwhile: nothing to sample
					continue
				}
				if err != nil {
					return samplingErr(err)
				}
				opened[owners[t]] = true
				s.counters = append(s.counters, c)
				id, err := c.KernelID()
				if err != nil {
					return err
				}
				s.ids[i] = append(s.ids[i], id)
				if ring != nil {
					if err := c.SetOutput(ring); err != nil {
						return err
					}
					continue
				}
				r, err := c.MapRing(s.ringPages)
				if err != nil {
					return err
				}
				s.rings = append(s.rings, r)
				if err := s.poller.Watch(r.FD()); err != nil {
					return err
				}
				ring = c
			}
		}
	}
	for _, pid := range s.req.PIDs {
		if !opened[pid] {
			return exitedErr(pid)
		}
	}
	return nil
}

// openEvent opens event i on tid/cpu. Like perf (and pmc stat), when the kernel refuses
// kernel-mode sampling (perf_event_paranoid >= 2 without CAP_PERFMON) the event is opened
// in user space only, from then on for every target, and a note says so.
func (s *Session) openEvent(i, tid, cpu int) (Counter, error) {
	name, attr := s.events[i].Name, s.attrs[i]
	c, err := s.k.Open(name, attr, tid, cpu, nil)
	if err == nil || !errors.Is(err, perfevent.ErrPermission) || attr.ExcludeKernel || tid == perfevent.AllTasks {
		return c, s.withParanoid(err)
	}
	attr.ExcludeKernel, attr.ExcludeHV = true, true
	c, err2 := s.k.Open(name, attr, tid, cpu, nil)
	switch {
	case err2 == nil:
		s.attrs[i] = attr
		s.note("sampling user space only (as :u) for %s: kernel.perf_event_paranoid is %s; "+
			"run as root, grant CAP_PERFMON or `sysctl -w kernel.perf_event_paranoid=1` to include the kernel", name, s.k.Machine.Paranoid())
		return c, nil
	case errors.Is(err2, perfevent.ErrPermission):
		return nil, s.withParanoid(err) // the original refusal says what to change
	}
	return nil, err2 // e.g. not supported: the real cause once permission is out of the way
}

// withParanoid gives a permission refusal the value of kernel.perf_event_paranoid, which
// its hint names (perfevent reads no /proc file).
func (s *Session) withParanoid(err error) error {
	var oe *perfevent.OpenError
	if errors.Is(err, perfevent.ErrPermission) && errors.As(err, &oe) && oe.Paranoid == "" {
		oe.Paranoid = s.k.Machine.Paranoid()
	}
	return err
}

func isESRCH(err error) bool {
	var oe *perfevent.OpenError
	return errors.As(err, &oe) && oe.Errno == unix.ESRCH
}

// samplingErr says why an event cannot be sampled.
func samplingErr(err error) error {
	if errors.Is(err, perfevent.ErrNotSupported) {
		return fmt.Errorf("%w: this event cannot be sampled here (no PMU for it, or its PMU has no overflow interrupt); try -e cpu-clock", err)
	}
	return err
}

// fileEvents are the events as the file describes them: the attributes opened, with ids.
func (s *Session) fileEvents() ([]perfdata.Event, error) {
	out := make([]perfdata.Event, len(s.events))
	for i, ev := range s.events {
		k, err := perfevent.Encode(s.attrs[i])
		if err != nil {
			return nil, err
		}
		out[i] = perfdata.Event{Name: ev.Name, IDs: s.ids[i], Attr: perfdata.Attr{Type: k.Type, Config: k.Config,
			SamplePeriod: k.Sample, SampleType: k.Sample_type, ReadFormat: k.Read_format, Flags: k.Bits,
			WakeupEvents: k.Wakeup, BPType: k.Bp_type, Config1: k.Ext1, Config2: k.Ext2,
			SampleRegsUser: k.Sample_regs_user, SampleStackUser: k.Sample_stack_user}}
	}
	return out, nil
}

func (s *Session) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(s.notes, n) {
		s.notes = append(s.notes, n)
	}
}

// Notes says what pmc changed to sample at all: a fallback event, user space only, a
// lowered frequency.
func (s *Session) Notes() []string { return s.notes }

func (s *Session) closeCounters() {
	for _, r := range s.rings {
		r.Close()
	}
	for _, c := range s.counters {
		c.Close()
	}
	s.rings, s.counters = nil, nil
}

package cli

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

// ringPages is each CPU's ring size in pages (512 KiB with 4 KiB pages, as perf's default
// for root).
const ringPages = 128

// recorder is one `pmc record` run: counters per event per CPU (and per thread when
// attached), one ring per CPU, the perf.data writer.
type recorder struct {
	plan     *recordPlan
	machine  *host.Machine
	cpus     []int
	stderr   io.Writer
	out      *outfile.File
	archive  *outfile.File // FILE.pmcsym with --embed-symbols
	child    *launch.Child
	events   []stat.Event
	counters []*perfevent.Counter
	rings    []*perfevent.Ring
	poller   *perfevent.Poller
	w        *perfdata.Writer
	samples  uint64
	lost     uint64            // records the kernel dropped (PERF_RECORD_LOST)
	lostSmp  uint64            // samples dropped (PERF_RECORD_LOST_SAMPLES)
	files    map[string]uint16 // mapped executable files seen: the build-id feature's DSOs
	gone     []<-chan struct{} // attach mode: closed at each process's exit
}

// sampling turns a counting attribute into pmc record's sampling one.
func (s *recorder) sampling(a perfevent.Attr, first, many bool) perfevent.Attr {
	a.SamplePeriod, a.Freq = s.plan.period, false
	if s.plan.freq > 0 {
		a.SamplePeriod, a.Freq = s.plan.freq, true
	}
	a.SampleType = perfevent.SampleIP | perfevent.SampleTID | perfevent.SampleTime | perfevent.SamplePeriod
	if s.plan.mode == stat.System {
		a.SampleType |= perfevent.SampleCPU
	}
	if s.plan.callchain {
		a.SampleType |= perfevent.SampleCallchain
	}
	if many {
		a.SampleType |= perfevent.SampleIdentifier
	}
	a.ReadFormat = 0
	a.SampleIDAll = true
	a.Disabled = true
	a.Inherit = s.plan.mode != stat.System
	a.EnableOnExec = s.plan.mode == stat.Launch
	a.Watermark, a.WakeupEvents = true, uint32(ringPages*os.Getpagesize()/4)
	// The first event also reports the tasks' maps, names, forks and exits.
	a.Mmap, a.Mmap2, a.Comm, a.CommExec, a.Task = first, first, first, first, first
	return a
}

// targets are the tasks counters are opened on: the workload, each attached thread, or
// every task (-1) on the CPUs.
func (s *recorder) targets() ([]int, error) {
	switch s.plan.mode {
	case stat.Launch:
		return []int{s.child.Pid()}, nil
	case stat.Attach:
		var tids []int
		for _, pid := range s.plan.pids {
			ts, err := s.machine.Threads(pid)
			if err != nil {
				return nil, fmt.Errorf("process %d: %w", pid, err)
			}
			tids = append(tids, ts...)
		}
		return tids, nil
	}
	return []int{perfevent.AllTasks}, nil
}

// open opens every event on every target and CPU, maps one ring per CPU and sends every
// other counter of that CPU to it, then writes the file's header.
func (s *recorder) open(evs []stat.Event) error {
	s.events = evs
	tasks, err := s.targets()
	if err != nil {
		return err
	}
	if s.poller == nil {
		if s.poller, err = perfevent.NewPoller(); err != nil {
			return err
		}
	}
	fileEvents := make([]perfdata.Event, len(evs))
	for i, ev := range evs {
		attr := s.sampling(ev.Attr, i == 0, len(evs) > 1)
		k, err := perfevent.Encode(attr)
		if err != nil {
			return err
		}
		fileEvents[i] = perfdata.Event{Name: ev.Name, Attr: perfdata.Attr{Type: k.Type, Config: k.Config,
			SamplePeriod: k.Sample, SampleType: k.Sample_type, ReadFormat: k.Read_format, Flags: k.Bits,
			WakeupEvents: k.Wakeup, BPType: k.Bp_type, Config1: k.Ext1, Config2: k.Ext2}}
	}
	for _, cpu := range s.cpus {
		var ring *perfevent.Counter
		for _, tid := range tasks {
			for i, ev := range evs {
				attr := s.sampling(ev.Attr, i == 0, len(evs) > 1)
				c, err := perfevent.Open(ev.Name, attr, tid, cpu, nil)
				if err != nil {
					return samplingErr(err)
				}
				s.counters = append(s.counters, c)
				id, err := c.KernelID()
				if err != nil {
					return err
				}
				fileEvents[i].IDs = append(fileEvents[i].IDs, id)
				if ring == nil {
					r, err := c.MapRing(ringPages)
					if err != nil {
						return err
					}
					s.rings = append(s.rings, r)
					if err := s.poller.Watch(r.FD()); err != nil {
						return err
					}
					ring = c
				} else if err := c.SetOutput(ring); err != nil {
					return err
				}
			}
		}
	}
	s.w, err = perfdata.NewWriter(s.out, fileEvents)
	return err
}

// samplingErr says why an event cannot be sampled.
func samplingErr(err error) error {
	switch {
	case isNotSupported(err):
		return fmt.Errorf("%w: this event cannot be sampled here (no PMU for it, or its PMU has no overflow interrupt); "+
			"try -e cpu-clock", err)
	}
	return err
}

func isNotSupported(err error) bool {
	oe, ok := err.(*perfevent.OpenError)
	return ok && oe.Err == perfevent.ErrNotSupported
}

// run synthesises the existing tasks, starts sampling, drains the rings until the workload
// exits (or the attached processes, or Ctrl-C), and returns the workload's exit status.
func (s *recorder) run(ctx, sigCtx context.Context) (int, error) {
	s.synthesize()
	done := make(chan struct{})
	var status launch.Status
	var waitErr error
	switch {
	case s.child != nil:
		unsignal, _ := launch.ForwardSignals(s.child)
		defer unsignal()
		if s.plan.mode == stat.System {
			s.enable()
		}
		if err := s.child.Exec(); err != nil {
			return 0, err
		}
		go func() {
			status, waitErr = s.child.Wait(ctx)
			close(done)
			s.poller.Wake()
		}()
	default:
		s.enable()
		go func() {
			if s.plan.mode == stat.Attach {
				s.waitAttached(sigCtx)
			} else {
				<-sigCtx.Done()
			}
			close(done)
			s.poller.Wake()
		}()
	}
	// The wake-up is a state: once the waiter has woken the poller every Wait returns at
	// once, so the loop cannot go back to sleep after the end.
	for {
		woken, err := s.poller.Wait(-1)
		if err != nil {
			return 0, err
		}
		if woken {
			break
		}
		if err := s.drain(); err != nil {
			return 0, err
		}
	}
	<-done
	for _, c := range s.counters {
		c.Disable()
	}
	if err := s.drain(); err != nil {
		return 0, err
	}
	if waitErr != nil {
		return 0, waitErr
	}
	return status.ExitCode(), nil
}

// watchAttached watches the attached processes' exits from before their counters are
// opened: a process that exits during the set-up is then still seen to exit (watching it
// after the exit failed, and pmc waited for Ctrl-C with nothing left to sample).
func (s *recorder) watchAttached() error {
	for _, pid := range s.plan.pids {
		ch, err := launch.Gone(pid)
		if err != nil {
			return fmt.Errorf("process %d: %w", pid, err)
		}
		s.gone = append(s.gone, ch)
	}
	return nil
}

// waitAttached returns when every attached process has exited or the signal context ends.
func (s *recorder) waitAttached(sigCtx context.Context) {
	all := make(chan struct{})
	go func() {
		for _, ch := range s.gone {
			<-ch
		}
		close(all)
	}()
	select {
	case <-all:
	case <-sigCtx.Done():
	}
}

func (s *recorder) enable() {
	for _, c := range s.counters {
		c.Enable()
	}
}

// drain copies every ring's records to the file, ends the round and makes it durable.
func (s *recorder) drain() error {
	total := 0
	for _, r := range s.rings {
		n, err := r.Drain(s.record)
		total += n
		if err != nil {
			return err
		}
	}
	if total > 0 && len(s.rings) > 1 {
		if err := s.w.Write(&perfdata.FinishedRound{}); err != nil {
			return err
		}
	}
	return s.w.Flush()
}

// record writes one ring record and keeps count of samples, losses and mapped files.
func (s *recorder) record(rec []byte) error {
	ne := binary.NativeEndian
	switch ne.Uint32(rec) {
	case perfdata.RecordSample:
		s.samples++
	case perfdata.RecordLost:
		if len(rec) >= 24 {
			s.lost += ne.Uint64(rec[16:])
		}
	case perfdata.RecordLostSamples:
		if len(rec) >= 16 {
			s.lostSmp += ne.Uint64(rec[8:])
		}
	case perfdata.RecordMmap2:
		if len(rec) > 72 && ne.Uint32(rec[64:])&4 != 0 { // PROT_EXEC
			s.addFile(cstr(rec[72:]), ne.Uint16(rec[4:]))
		}
	}
	return s.w.WriteRaw(rec)
}

func cstr(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

func (s *recorder) addFile(name string, misc uint16) {
	if s.files == nil {
		s.files = map[string]uint16{}
	}
	if strings.HasPrefix(name, "/") {
		s.files[name] = misc & perfdata.MiscCPUModeMask
	}
}

// finish writes the features and the final header, closes the file and prints perf's summary.
func (s *recorder) finish() error {
	s.closeCounters()
	s.w.Features = s.features()
	if err := s.w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", s.plan.output, err)
	}
	out := s.out
	s.out = nil
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", s.plan.output, err)
	}
	if s.lost > 0 || s.lostSmp > 0 {
		fmt.Fprintf(s.stderr, "pmc record: lost %d records and %d samples: the rings filled up; sample less often (-F, -c)\n",
			s.lost, s.lostSmp)
	}
	size := float64(s.w.DataSize()) / (1 << 20)
	fmt.Fprintf(s.stderr, "[ pmc record: Captured and wrote %.3f MB %s (%d samples) ]\n", size, s.plan.output, s.samples)
	return nil
}

func (s *recorder) features() perfdata.Features {
	release, arch, _ := unix.Uname()
	fs := perfdata.Features{Hostname: s.machine.Hostname, OSRelease: release, Version: "pmc", Arch: arch,
		NrCPUsAvailable: uint32(runtime.NumCPU()), NrCPUsOnline: uint32(len(s.machine.PMUs.Online)),
		CPUDesc: s.machine.CPUModel(), Cmdline: append([]string{"pmc"}, os.Args[1:]...)}
	if fs.NrCPUsOnline == 0 {
		fs.NrCPUsOnline = fs.NrCPUsAvailable
	}
	fs.BuildIDs = buildIDs(s.files)
	return fs
}

func (s *recorder) closeCounters() {
	for _, r := range s.rings {
		r.Close()
	}
	for _, c := range s.counters {
		c.Close()
	}
	s.rings, s.counters = nil, nil
}

// abort drops the output (nothing was recorded): outfile removes what pmc created and
// leaves what was there before as it was.
func (s *recorder) abort() {
	if s.out != nil {
		s.out.Abort()
		s.out = nil
	}
	if s.archive != nil {
		s.archive.Abort()
		s.archive = nil
	}
}

func (s *recorder) close() {
	s.closeCounters()
	if s.poller != nil {
		s.poller.Close()
	}
	if s.child != nil {
		s.child.Kill()
	}
	if s.out != nil {
		s.out.Close()
	}
	if s.archive != nil {
		s.archive.Abort()
	}
}

package record

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/unix"
	"github.com/pmc-tools/pmc/internal/zstd"
)

// Session is one recording: counters per event per CPU (and per thread when attached), one
// ring per CPU, the poller and the perf.data writer. It owns every counter, ring and fd it
// opened, and the workload it started; Close releases them.
type Session struct {
	req       *Request
	k         Kernel
	child     *launch.Child
	cpus      []int
	freq      uint64
	ringPages int
	events    []Event          // as sampled (after a fallback)
	attrs     []perfevent.Attr // the sampling attributes as opened, per event
	ids       [][]uint64       // the kernel ids of each event's counters
	counters  []Counter
	rings     []Ring
	poller    *perfevent.Poller
	gone      []<-chan struct{} // Attach: closed at each process's exit
	notes     []string
	w         *perfdata.Writer
	dec       *perfdata.RawDecoder
	hits      *hits // the files samples hit: the build-id feature's
	res       Result
	pending   uint64 // samples written since the last flush
	werr      error  // the first write error: nothing more is written
	ran       bool
}

// Start prepares a recording into w (a file at its start, or any stream with req.Pipe): it
// starts the workload (not yet exec'd), opens the counters with their fallbacks, maps the
// rings and writes the file's header. On an error everything opened is released and the workload killed;
// nothing was recorded, so the caller drops the output.
func Start(req *Request, k Kernel, w io.Writer) (*Session, error) {
	if len(req.Events) == 0 {
		return nil, errors.New("no event to sample")
	}
	if k.Machine == nil {
		return nil, errors.New("record: no machine")
	}
	if err := checkUserStack(req.UserStack); err != nil {
		return nil, err
	}
	s := &Session{req: req, k: k.withDefaults(), ringPages: req.RingPages, cpus: req.CPUs, hits: newHits(0, 0)}
	if s.ringPages == 0 {
		s.ringPages = DefaultRingPages
	}
	if err := s.start(w); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) start(w io.Writer) error {
	if len(s.cpus) == 0 {
		s.cpus = s.k.Machine.PMUs.Online
	}
	if len(s.cpus) == 0 {
		return errors.New("no online CPU found in /sys/devices/system/cpu/online")
	}
	s.clampFreq()
	if s.req.Mode == Attach {
		if err := s.checkAttached(); err != nil {
			return err
		}
	}
	var err error
	if len(s.req.Command) > 0 && s.req.Mode != Attach {
		s.child, err = launch.Start(launch.Cmd{Path: s.req.Path, Args: s.req.Command, Env: s.req.Env,
			Stdin: s.req.Stdin, Stdout: s.req.Stdout, Stderr: s.req.Stderr})
		if err != nil {
			return fmt.Errorf("starting %q: %w", s.req.Command[0], err)
		}
	} else if s.req.Mode == Launch {
		return errors.New("no command to sample")
	}
	if s.poller, err = perfevent.NewPoller(); err != nil {
		return err
	}
	if err := s.open(); err != nil {
		return err
	}
	evs, err := s.fileEvents()
	if err != nil {
		return err
	}
	if s.w, err = s.newWriter(w, evs); err != nil {
		return fmt.Errorf("writing the recording: %w", err)
	}
	if s.req.Compression > 0 {
		// Each COMPRESSED record decompresses into at most a ring's mapping, as perf's
		// reader expects.
		s.w.Compress(zstd.NewEncoder(zstd.Options{Level: s.req.Compression}), s.mmapLen())
	}
	s.dec, err = perfdata.NewRawDecoder(evs)
	for _, ev := range s.events {
		s.res.Events = append(s.res.Events, ev.Name)
	}
	return err
}

// Run samples until the end: the workload's exit (Launch, or System with a command), the
// exit of every attached process, or ctx (Ctrl-C) outside Launch, where signals go to the
// workload. It then writes the features and the final header. The Result is valid with
// an error too: what was written stays written.
func (s *Session) Run(ctx context.Context) (*Result, error) {
	if s.ran {
		return nil, errors.New("record: Run called twice")
	}
	s.ran = true
	s.synthesize()
	done, err := s.begin(ctx)
	if err != nil {
		return &s.res, err
	}
	// The poller's wake-up is a state: once the end has woken it every Wait returns at
	// once, so the loop cannot go back to sleep after the end.
	for {
		woken, err := s.poller.Wait(-1)
		if err != nil {
			return &s.res, err
		}
		if woken {
			break
		}
		s.drain()
	}
	<-done
	for _, c := range s.counters {
		c.Disable()
	}
	s.drain()
	s.finish()
	return &s.res, nil
}

// begin starts sampling and returns a channel closed at the end, once the poller has been
// woken (so Close, which comes after done, never races with Wake).
func (s *Session) begin(ctx context.Context) (<-chan struct{}, error) {
	done := make(chan struct{})
	end := func() {
		s.poller.Wake()
		close(done)
	}
	if s.child == nil {
		s.enable()
		go func() {
			s.waitEnd(ctx)
			end()
		}()
		return done, nil
	}
	// Forward signals from before the exec: a SIGTERM to pmc in between must reach the
	// workload rather than leave it running unsampled.
	unsignal, giveUp := launch.ForwardSignals(s.child)
	if s.req.Mode == System {
		s.enable()
	}
	if ctx.Err() != nil { // Ctrl-C during the set-up: the workload never runs
		unsignal()
		s.child.Kill()
		s.res.ExitStatus = 128 + int(unix.SIGINT)
		go end()
		return done, nil
	}
	if err := s.child.Exec(); err != nil {
		unsignal()
		return nil, err
	}
	go func() {
		defer end()
		defer unsignal()
		exited := make(chan launch.Status, 1)
		go func() {
			st, _ := s.child.Wait(context.Background())
			exited <- st
		}()
		select {
		case st := <-exited:
			s.res.ExitStatus = st.ExitCode()
		case sig := <-giveUp:
			// The workload ignored the signal: finish the recording, leave it running.
			s.res.ExitStatus = 128 + int(sig.(unix.Signal))
		}
	}()
	return done, nil
}

// waitEnd returns at ctx's end or, attached, when every process has exited.
func (s *Session) waitEnd(ctx context.Context) {
	if s.req.Mode != Attach {
		<-ctx.Done()
		return
	}
	all := make(chan struct{})
	go func() {
		for _, ch := range s.gone {
			<-ch
		}
		close(all)
	}()
	select {
	case <-all:
	case <-ctx.Done():
	}
}

func (s *Session) enable() {
	for _, c := range s.counters {
		c.Enable()
	}
}

// Close releases the counters, rings and poller, and kills a workload never exec'd (or
// left running after Run). Safe to call more than once.
func (s *Session) Close() error {
	s.closeCounters()
	if s.poller != nil {
		s.poller.Close()
		s.poller = nil
	}
	if s.child != nil && !s.ran {
		s.child.Kill()
	}
	return nil
}

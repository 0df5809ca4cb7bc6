package stat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Kernel is the Backend that counts with perf_event_open(2).
type Kernel struct {
	// Machine is the machine counted: the threads and states of its processes (attach mode)
	// and its online CPUs (system mode without -C). The caller passes the one machine model
	// it reads (pmc's commands: their env's); Kernel never probes one itself. Launch mode and
	// system mode with CPUs given need none.
	Machine *host.Machine
	// Threads lists the thread ids of a process (attach mode). Defaults to Machine's.
	Threads func(pid int) ([]int, error)
	// Pids lists every process (system mode per thread). Defaults to the machine's.
	Pids func() ([]int, error)
	// Process gives a process's state letter and owner's uid (attach mode): a zombie has
	// nothing to count, and another user's process is refused for ptrace reasons, not
	// perf_event_paranoid. Defaults to Machine's.
	Process func(pid int) (state byte, uid int, err error)
	// OnlineCPUs lists the CPUs for system mode without -C. Defaults to Machine's.
	OnlineCPUs func() ([]int, error)
	// Open opens one event. Defaults to perfevent.Open; tests script the kernel's answers
	// (an errno per event and target) to exercise the session's own logic on any machine.
	Open Opener
	// OpenCgroup opens one event for the cgroup whose directory fd is pid (Request.Cgroup).
	// Defaults to perfevent.OpenCgroup.
	OpenCgroup Opener
}

// Counter is what a session needs of an open event; *perfevent.Counter is the real one.
type Counter interface {
	Read() (perfevent.Value, error)
	ReadGroup() ([]perfevent.Value, error) // a leader opened with PERF_FORMAT_GROUP
	ID() uint64
	Enable() error
	Close() error
}

// openKernelCgroup is the Opener of perf_event_open(2) with PERF_FLAG_PID_CGROUP.
func openKernelCgroup(name string, attr perfevent.Attr, cgroupFD, cpu int, leader Counter) (Counter, error) {
	var l *perfevent.Counter
	if leader != nil {
		l = leader.(*perfevent.Counter)
	}
	c, err := perfevent.OpenCgroup(name, attr, cgroupFD, cpu, l)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Opener opens one event on pid/cpu, in leader's group when leader is not nil.
type Opener func(name string, attr perfevent.Attr, pid, cpu int, leader Counter) (Counter, error)

// openKernel is the Opener of perf_event_open(2).
func openKernel(name string, attr perfevent.Attr, pid, cpu int, leader Counter) (Counter, error) {
	var l *perfevent.Counter
	if leader != nil {
		l = leader.(*perfevent.Counter)
	}
	c, err := perfevent.Open(name, attr, pid, cpu, l)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return c, nil
}

func (Kernel) Name() string { return "perf_event" }

// errNoMachine: a Kernel was asked for the processes or CPUs of a machine it was not given.
var errNoMachine = errors.New("stat.Kernel: no machine to list the threads or CPUs of (Kernel.Machine)")

// target is where a counter is opened: a task (pid, any CPU) or a CPU (all tasks); owner is
// the attached process a thread belongs to. A cgroup target has the cgroup's directory fd as
// its pid.
type target struct {
	pid, cpu, owner int
	cgroup          bool
}

// attachedTID is the thread a target counts in attach mode, 0 elsewhere.
func attachedTID(req *Request, t target) int {
	if req.Mode == Attach || systemThreads(req) {
		return t.pid
	}
	return 0
}

// slot is one event on one target. Members of a group read through their leader's slot.
type slot struct {
	event  int
	cpu    int
	tid    int // attach mode: the thread counted
	c      Counter
	err    error
	leader int // index of the group leader's slot when the group is read at once; -1 otherwise
	// userOnly: counted (or refused) as :u after the kernel refused kernel-mode counting.
	userOnly  bool
	ungrouped bool // its weak group did not fit: opened on its own
}

type kernelSession struct {
	req      *Request
	ctx      context.Context
	cancel   context.CancelFunc
	child    *launch.Child
	slots    []slot
	start    time.Time
	ticker   *time.Ticker
	ticks    chan time.Duration
	done     chan struct{}
	mu       sync.Mutex
	enableMu sync.Mutex // -D: enabling the counters late and closing them exclude each other
	outcome  Outcome
	waitErr  error
	started  bool
	stopOnce sync.Once
	unsignal func()           // stops forwarding signals to the workload
	giveUp   <-chan os.Signal // a signal after which pmc stops waiting for the workload
	allGone  chan struct{}    // attach mode: closed when every attached process has exited
	userOnly []string         // events counted in user space only after a permission refusal
	apart    []string         // weak groups counted as separate events (Notes)
	// noGuestFilter: events counted without exclude_guest, which their PMU refused.
	noGuestFilter []string
	openFn        Opener
	kernel        Kernel
	cgroupFD      int      // Request.Cgroup's directory, open while the session is; -1 without
	sampler       *sampler // the periodic reads for the bounds of multiplexed counts; nil without
}

func (k Kernel) Begin(ctx context.Context, req *Request, run int) (Session, error) {
	s := &kernelSession{req: req, done: make(chan struct{}), openFn: k.Open, kernel: k, cgroupFD: -1}
	if s.openFn == nil {
		s.openFn = openKernel
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	targets, err := k.targets(req)
	if err != nil {
		return nil, err
	}
	if req.Cgroup != "" {
		if req.Mode != System {
			return nil, fmt.Errorf("cgroup %s: a cgroup is counted system-wide (per CPU) only", req.Cgroup)
		}
		if s.cgroupFD, err = unix.OpenCgroupDir(req.Cgroup); err != nil {
			return nil, fmt.Errorf("cgroup %s: %w", req.Cgroup, err)
		}
		if k.OpenCgroup != nil {
			s.openFn = k.OpenCgroup
		} else {
			s.openFn = openKernelCgroup
		}
		for i := range targets {
			targets[i].pid, targets[i].cgroup = s.cgroupFD, true
		}
	}
	if len(req.Command) > 0 && req.Mode != Attach {
		path, err := launch.LookPath(req.Command[0])
		if err != nil {
			return nil, err
		}
		s.child, err = launch.Start(launch.Cmd{Path: path, Args: req.Command,
			Env: os.Environ(), Stdin: req.Stdin, Stdout: req.Stdout, Stderr: req.Stderr})
		if err != nil {
			return nil, fmt.Errorf("starting %q: %w", req.Command[0], err)
		}
		if req.Mode == Launch {
			targets = []target{{pid: s.child.Pid(), cpu: perfevent.AnyCPU}}
		}
	}
	if err := s.open(targets); err != nil {
		s.Close()
		return nil, err
	}
	if req.Mode == Attach {
		s.watchExits(req.PIDs)
	}
	return s, nil
}

// watchExits closes allGone once every attached process has exited: like perf, pmc stat -p
// stops when there is nothing left to count.
func (s *kernelSession) watchExits(pids []int) {
	s.allGone = make(chan struct{})
	var gone []<-chan struct{}
	for _, pid := range pids {
		if ch, err := launch.Gone(pid); err == nil {
			gone = append(gone, ch)
		}
	}
	if len(gone) < len(pids) {
		return // cannot watch them all: stop at Ctrl-C or --duration only
	}
	go func() {
		for _, ch := range gone {
			<-ch
		}
		close(s.allGone)
	}()
}

func (k Kernel) targets(req *Request) ([]target, error) {
	switch req.Mode {
	case Attach:
		threads, process := k.Threads, k.Process
		if threads == nil || process == nil {
			if k.Machine == nil {
				return nil, errNoMachine
			}
			if threads == nil {
				threads = k.Machine.Threads
			}
			if process == nil {
				process = k.Machine.Process
			}
		}
		var ts []target
		for _, pid := range req.PIDs {
			if req.Threads {
				if _, _, err := process(pid); err != nil {
					return nil, fmt.Errorf("thread %d: %w", pid, err)
				}
				ts = append(ts, target{pid: pid, cpu: perfevent.AnyCPU, owner: pid})
				continue
			}
			if state, _, err := process(pid); err == nil && state == 'Z' {
				return nil, fmt.Errorf("process %d has exited (a zombie its parent has not reaped): nothing is left to count", pid)
			}
			tids, err := threads(pid)
			if err != nil {
				return nil, fmt.Errorf("process %d: %w", pid, err)
			}
			for _, tid := range tids {
				ts = append(ts, target{pid: tid, cpu: perfevent.AnyCPU, owner: pid})
			}
		}
		return ts, nil
	case System:
		if req.PerThread {
			return k.everyThread()
		}
		cpus := req.CPUs
		if len(cpus) == 0 {
			online := k.OnlineCPUs
			if online == nil {
				if k.Machine == nil {
					return nil, errNoMachine
				}
				online = func() ([]int, error) { return k.Machine.PMUs.Online, nil }
			}
			var err error
			if cpus, err = online(); err != nil {
				return nil, err
			}
		}
		ts := make([]target, len(cpus))
		for i, c := range cpus {
			ts[i] = target{pid: perfevent.AllTasks, cpu: c}
		}
		return ts, nil
	}
	return nil, nil // launch: the child's pid is known only after Start
}

// otherUser explains a refused attach to a process of another user: the kernel checks
// ptrace access to the task, which perf_event_paranoid does not change. nil when that is
// not the cause (the process is ours, or pmc runs as root).
func (k Kernel) otherUser(pid int) error {
	process := k.Process
	if process == nil && k.Machine != nil {
		process = k.Machine.Process
	}
	if process == nil {
		return nil
	}
	_, uid, err := process(pid)
	if err != nil || uid < 0 || uid == os.Geteuid() || os.Geteuid() == 0 {
		return nil
	}
	return fmt.Errorf("process %d belongs to uid %d: counting another user's process needs ptrace access to it "+
		"(CAP_PERFMON or CAP_SYS_PTRACE, kernel.yama.ptrace_scope); run pmc as that user or as root", pid, uid)
}

// open opens every event on every target, group by group. Every counter opened belongs to
// s.slots at once, so Close releases it whatever fails next.
func (s *kernelSession) open(targets []target) error {
	evs := s.req.Events
	for _, t := range targets {
		first := len(s.slots)
		for i := 0; i < len(evs); {
			j := i + 1
			for j < len(evs) && evs[j].Group == evs[i].Group {
				j++
			}
			if err := s.openGroup(i, j, t); err != nil {
				return err
			}
			i = j
		}
		if systemThreads(s.req) {
			s.dropGone(first)
		}
	}
	return nil
}

// openGroup opens events i..j-1, one group, on t. A refused leader takes its group down with
// it; a member refused with EINVAL in a multi-event group means the group does not fit the
// counters, and the whole group is reported as not counted with that reason. A refusal that
// no other event can escape (permission, the fd limit) ends the session.
func (s *kernelSession) openGroup(i, j int, t target) error {
	evs := s.req.Events
	first := len(s.slots)
	lead := -1
	if j-i > 1 && evs[i].Attr.ReadFormat&perfevent.FormatGroup != 0 {
		lead = first
	}
	var groupErr error
	for e := i; e < j; e++ {
		s.slots = append(s.slots, slot{event: e, cpu: t.cpu, tid: attachedTID(s.req, t), leader: lead})
		sl := &s.slots[len(s.slots)-1]
		if groupErr != nil {
			sl.err = groupErr
			continue
		}
		var leader Counter
		if e > i {
			leader = s.slots[first].c
		}
		c, userOnly, err := s.openEvent(evs[e], t, leader)
		sl.userOnly = userOnly
		switch {
		case err == nil:
			sl.c = c
		case errors.Is(err, perfevent.ErrPermission) || errors.Is(err, perfevent.ErrTooManyFiles):
			if t.owner > 0 && errors.Is(err, perfevent.ErrPermission) {
				if why := s.kernel.otherUser(t.owner); why != nil {
					err = why
				}
			}
			sl.err = err
			return err
		case e > i && errors.Is(err, perfevent.ErrInvalid) && evs[i].Weak:
			return s.openApart(i, j, t, first)
		case e > i && errors.Is(err, perfevent.ErrInvalid):
			// The whole group is refused: every member, opened or not, says why.
			groupErr = fmt.Errorf("%w (the kernel refused member %d of %d, %q, with EINVAL)",
				ErrGroupTooLarge, e-i+1, j-i, evs[e].Name)
			for g := first; g < len(s.slots); g++ {
				if s.slots[g].c != nil {
					s.slots[g].c.Close()
				}
				s.slots[g].c, s.slots[g].err = nil, groupErr
			}
		case e == i && j-i > 1:
			groupErr = fmt.Errorf("%w (%q): %w", ErrGroupLeader, evs[e].Name, err)
			sl.err = err
		default:
			sl.err = err
		}
	}
	return nil
}

// openEvent opens event e on t. Like perf, when the kernel refuses an event that counts
// kernel time (perf_event_paranoid >= 2 without CAP_PERFMON) it is retried in user space
// only; unlike perf, pmc says so (Notes) instead of changing the meaning quietly.
//
// userOnly reports that the event was retried as :u; err is then the retry's refusal when
// that too failed (on a machine without a PMU, "not supported" is the cause, not the
// permission the first try ran into).
func (s *kernelSession) openEvent(ev Event, t target, leader Counter) (c Counter, userOnly bool, err error) {
	c, err = s.openFn(ev.Name, ev.Attr, t.pid, t.cpu, leader)
	if err != nil && (ev.Attr.ExcludeGuest || ev.Attr.ExcludeHost) &&
		(errors.Is(err, perfevent.ErrInvalid) || errors.Is(err, perfevent.ErrNotSupported)) {
		// Like perf, retry without the guest/host filter, which PMUs such as msr refuse.
		attr := ev.Attr
		attr.ExcludeGuest, attr.ExcludeHost = false, false
		if c2, err2 := s.openFn(ev.Name, attr, t.pid, t.cpu, leader); err2 == nil {
			if !slices.Contains(s.noGuestFilter, ev.Name) {
				s.noGuestFilter = append(s.noGuestFilter, ev.Name)
			}
			return c2, false, nil
		}
	}
	if err == nil || !errors.Is(err, perfevent.ErrPermission) || ev.Attr.ExcludeKernel || t.pid == perfevent.AllTasks || t.cgroup {
		return c, false, s.withParanoid(err)
	}
	attr := ev.Attr
	attr.ExcludeKernel, attr.ExcludeHV = true, true
	c, err2 := s.openFn(ev.Name, attr, t.pid, t.cpu, leader)
	switch {
	case err2 == nil:
		if !slices.Contains(s.userOnly, ev.Name) {
			s.userOnly = append(s.userOnly, ev.Name)
		}
		return c, true, nil
	case errors.Is(err2, perfevent.ErrPermission):
		return nil, false, s.withParanoid(err) // the original refusal says what to change
	}
	return nil, true, err2
}

// paranoid is kernel.perf_event_paranoid of the machine counted, "?" when not known.
func (s *kernelSession) paranoid() string {
	if m := s.kernel.Machine; m != nil {
		return m.Paranoid()
	}
	return "?"
}

// withParanoid gives a permission refusal the value of kernel.perf_event_paranoid, which its
// message names (perfevent reads no /proc file itself).
func (s *kernelSession) withParanoid(err error) error {
	var oe *perfevent.OpenError
	if errors.Is(err, perfevent.ErrPermission) && errors.As(err, &oe) && oe.Paranoid == "" {
		oe.Paranoid = s.paranoid()
	}
	return err
}

// Notes says what pmc changed to count at all: events counted in user space only, events
// counted without the guest filter.
func (s *kernelSession) Notes() []string {
	var notes []string
	if len(s.userOnly) > 0 {
		notes = append(notes, fmt.Sprintf("counting user space only (as :u) for %s: kernel.perf_event_paranoid is %s; "+
			"run as root, grant CAP_PERFMON or `sysctl -w kernel.perf_event_paranoid=1` to include the kernel",
			strings.Join(s.userOnly, ", "), s.paranoid()))
	}
	if len(s.noGuestFilter) > 0 {
		notes = append(notes, fmt.Sprintf("%s counted with virtual machines' time included: its PMU cannot exclude guests",
			strings.Join(s.noGuestFilter, ", ")))
	}
	if len(s.apart) > 0 {
		notes = append(notes, fmt.Sprintf("weak group %s did not fit the counters: its events were counted on their own (not together)",
			strings.Join(s.apart, ", ")))
	}
	return notes
}

// enableAfter enables every counter d after the workload's exec (-D), in the background: the
// events were opened disabled without enable_on_exec, and an enabled counter enables its
// inherited copies too. A workload that ends sooner, or Ctrl-C, leaves them disabled (<not
// counted>). enableMu keeps Close from closing the counters while they are being enabled.
func (s *kernelSession) enableAfter(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.done:
		return
	case <-s.ctx.Done():
		return
	}
	s.enableMu.Lock()
	defer s.enableMu.Unlock()
	if s.ctx.Err() != nil {
		return // closed meanwhile
	}
	for _, sl := range s.slots {
		if sl.c != nil {
			sl.c.Enable() // a refusal leaves it disabled: <not counted>, never a wrong count
		}
	}
}

func (s *kernelSession) Start() error {
	if s.req.Mode == System {
		// System-wide counters count pmc too. A garbage collection left pending by the set-up
		// (event tables, resolution) would otherwise run inside the window: finishing it now
		// leaves pmc's heap target far above what it allocates while counting.
		runtime.GC()
	}
	s.start = time.Now()
	if s.req.Mode != Launch {
		for _, sl := range s.slots {
			if sl.c != nil {
				if err := sl.c.Enable(); err != nil {
					return fmt.Errorf("enabling %q: %w", s.req.Events[sl.event].Name, err)
				}
			}
		}
	}
	if s.child != nil {
		// Forward from before the exec: a SIGTERM to pmc in between must reach the workload
		// rather than kill pmc and leave the workload running uncounted.
		s.unsignal, s.giveUp = launch.ForwardSignals(s.child)
		if err := s.child.Exec(); err != nil {
			return err
		}
		if s.req.Mode == Launch && s.req.Delay > 0 {
			go s.enableAfter(s.req.Delay)
		}
	}
	s.started = true
	if !s.req.NoBound && !s.req.NoScale && mayMultiplex(s.req.Events) {
		s.sampler = startSampler(s.Read, BoundPeriod, s.req.Interval > 0)
	}
	if s.req.Interval > 0 {
		s.ticker = time.NewTicker(s.req.Interval)
		s.ticks = make(chan time.Duration)
		go s.tick()
	}
	go s.wait()
	return nil
}

func (s *kernelSession) tick() {
	n := 0
	for {
		select {
		case <-s.done:
			return
		case now := <-s.ticker.C:
			select {
			case s.ticks <- now.Sub(s.start):
			case <-s.done:
				return
			}
			n++
			if s.req.IntervalCount > 0 && n >= s.req.IntervalCount {
				s.stop()
				return
			}
		}
	}
}

// stop ends a run early (interval count reached): cancelling the session's context makes
// Wait send the workload SIGTERM, like perf.
func (s *kernelSession) stop() {
	s.stopOnce.Do(s.cancel)
}

func (s *kernelSession) wait() {
	defer close(s.done)
	var timeout <-chan time.Time
	if s.req.Duration > 0 {
		t := time.NewTimer(s.req.Duration)
		defer t.Stop()
		timeout = t.C
	}
	if s.child != nil {
		// --duration and --interval-count end the workload with SIGTERM through Wait's ctx.
		ctx := s.ctx
		if s.req.Duration > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.req.Duration)
			defer cancel()
		}
		type waited struct {
			st  launch.Status
			err error
		}
		exited := make(chan waited, 1)
		go func() {
			st, err := s.child.Wait(ctx)
			exited <- waited{st, err}
		}()
		var w waited
		select {
		case w = <-exited:
		case sig := <-s.giveUp:
			// The workload ignored the signal: report what was counted and leave it running.
			s.unsignal()
			s.mu.Lock()
			s.outcome = Outcome{Elapsed: time.Since(s.start), Abandoned: true, ExitStatus: 128 + int(sig.(unix.Signal)),
				Signal: signalName(sig.(unix.Signal))}
			s.mu.Unlock()
			return
		}
		st, err := w.st, w.err
		s.unsignal()
		if err == nil && st.ExecErr != nil {
			err = st.ExecErr
		}
		s.mu.Lock()
		s.outcome = Outcome{ExitStatus: st.ExitCode(), Elapsed: st.Elapsed, User: st.User, Sys: st.Sys, MaxRSSKB: st.MaxRSSKB,
			MaxRSSBelowKB: st.MaxRSSBelowKB, Stopped: st.Terminated}
		if st.Signaled {
			s.outcome.Signal = signalName(st.Signal)
		}
		s.waitErr = err
		s.mu.Unlock()
		return
	}
	select {
	case <-s.ctx.Done():
	case <-timeout:
	case <-s.allGone: // nil (never) outside attach mode
	}
	s.mu.Lock()
	s.outcome = Outcome{Elapsed: time.Since(s.start)}
	s.mu.Unlock()
}

// Read reads every counter: a group once, through its leader (PERF_FORMAT_GROUP), each
// member picking its value by id; other counters one by one.
func (s *kernelSession) Read() ([]Reading, error) {
	out := make([]Reading, len(s.slots))
	var group map[uint64]perfevent.Value // the current group's read, by member id
	for i, sl := range s.slots {
		out[i] = Reading{Event: sl.event, CPU: sl.cpu, TID: sl.tid, Err: sl.err, UserOnly: sl.userOnly, Ungrouped: sl.ungrouped}
		if sl.c == nil {
			continue
		}
		if sl.leader < 0 {
			v, err := sl.c.Read()
			if err != nil {
				return nil, err
			}
			out[i].Value = v
			continue
		}
		if sl.leader == i {
			vs, err := sl.c.ReadGroup()
			if err != nil {
				return nil, fmt.Errorf("reading group of %q: %w", s.req.Events[sl.event].Name, err)
			}
			group = make(map[uint64]perfevent.Value, len(vs))
			for _, v := range vs {
				group[v.ID] = v
			}
		}
		v, ok := group[sl.c.ID()]
		if !ok {
			return nil, fmt.Errorf("reading %q: its id %d is not in its group's read", s.req.Events[sl.event].Name, sl.c.ID())
		}
		out[i].Value = v
	}
	return out, nil
}

func (s *kernelSession) Ticks() <-chan time.Duration {
	if s.ticks == nil {
		return nil
	}
	return s.ticks
}

func (s *kernelSession) Done() <-chan struct{} { return s.done }

func (s *kernelSession) Outcome() (Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outcome, s.waitErr
}

// Final stops the periodic reads, reads every counter a last time and gives each reading
// the uncertainty of its count over the run.
func (s *kernelSession) Final() ([]Reading, error) {
	rs, err := s.Read()
	if err != nil || s.sampler == nil {
		return rs, err
	}
	withMux(rs, s.sampler.finish(rs))
	return rs, nil
}

// Cut reads every counter for an -I interval and gives each reading the uncertainty of its
// count over the interval.
func (s *kernelSession) Cut() ([]Reading, error) {
	rs, err := s.Read()
	if err != nil || s.sampler == nil {
		return rs, err
	}
	withMux(rs, s.sampler.cut(rs))
	return rs, nil
}

// withMux attaches each slot's uncertainty to its reading.
func withMux(rs []Reading, us []*Uncertainty) {
	for i := range rs {
		if i < len(us) {
			rs[i].Mux = us[i]
		}
	}
}

// mayMultiplex reports whether any event can be multiplexed: software events never are (the
// kernel counts them without a PMU counter), so a list of them needs no periodic reads.
func mayMultiplex(evs []Event) bool {
	for _, e := range evs {
		if e.Attr.Type != perfevent.TypeSoftware {
			return true
		}
	}
	return false
}

func (s *kernelSession) Close() error {
	if s.sampler != nil {
		s.sampler.halt()
	}
	if s.ticker != nil {
		s.ticker.Stop()
	}
	if s.child != nil && !s.started {
		if s.unsignal != nil {
			s.unsignal() // Exec failed: wait() never ran to stop the forwarding
		}
		s.child.Kill()
	}
	s.cancel()
	s.enableMu.Lock()
	for i := range s.slots {
		if s.slots[i].c != nil {
			s.slots[i].c.Close()
			s.slots[i].c = nil
		}
	}
	s.enableMu.Unlock()
	if s.cgroupFD >= 0 {
		unix.Close(s.cgroupFD)
		s.cgroupFD = -1
	}
	return nil
}

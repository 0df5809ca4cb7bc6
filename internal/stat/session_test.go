package stat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/unix"
)

// scripted is a Kernel Opener whose answers are scripted per event and target: the
// counting session's own logic (groups, retries, statuses, targets, cleanup) runs as it does
// on a machine, with no PMU and no permissions needed. It tracks every counter it hands out.
type scripted struct {
	// refuse maps "event" or "event@pid/cpu" to the error the kernel gives.
	refuse map[string]error
	// kernelRefused: events the kernel refuses with EACCES unless they exclude the kernel.
	kernelRefused []string
	// values maps "event" or "event@pid/cpu" to the reading.
	values map[string]perfevent.Value
	opened []*fakeCounter
	nextID uint64
	failAt int // when > 0, the failAt-th open (1-based) fails with EMFILE
	opens  int
	// groupLimit, when > 0, is the largest group the "PMU" takes: a member beyond it is
	// refused with EINVAL, as the kernel refuses a group larger than the counters.
	groupLimit int
}

type fakeCounter struct {
	s       *scripted
	name    string
	attr    perfevent.Attr
	pid     int
	cpu     int
	id      uint64
	leader  *fakeCounter
	members []*fakeCounter
	closed  bool
}

func (s *scripted) key(name string, pid, cpu int) []string {
	return []string{fmt.Sprintf("%s@%d/%d", name, pid, cpu), name}
}

func (s *scripted) open(name string, attr perfevent.Attr, pid, cpu int, leader Counter) (Counter, error) {
	s.opens++
	if s.failAt > 0 && s.opens == s.failAt {
		return nil, &perfevent.OpenError{Event: name, PID: pid, CPU: cpu, Err: perfevent.ErrTooManyFiles}
	}
	for _, k := range s.key(name, pid, cpu) {
		if err, ok := s.refuse[k]; ok {
			if errno, ok := err.(unix.Errno); ok { // as perfevent classifies an errno it has no sentinel for
				return nil, &perfevent.OpenError{Event: name, PID: pid, CPU: cpu, Errno: errno, Err: perfevent.ErrInvalid}
			}
			return nil, &perfevent.OpenError{Event: name, PID: pid, CPU: cpu, Err: err}
		}
	}
	if leader != nil && s.groupLimit > 0 && len(leader.(*fakeCounter).members)+2 > s.groupLimit {
		return nil, &perfevent.OpenError{Event: name, PID: pid, CPU: cpu, Err: perfevent.ErrInvalid}
	}
	if slices.Contains(s.kernelRefused, name) && !attr.ExcludeKernel {
		return nil, &perfevent.OpenError{Event: name, PID: pid, CPU: cpu, Err: perfevent.ErrPermission}
	}
	s.nextID++
	c := &fakeCounter{s: s, name: name, attr: attr, pid: pid, cpu: cpu, id: s.nextID}
	if leader != nil {
		c.leader = leader.(*fakeCounter)
		c.leader.members = append(c.leader.members, c)
	}
	s.opened = append(s.opened, c)
	return c, nil
}

func (s *scripted) value(c *fakeCounter) perfevent.Value {
	for _, k := range s.key(c.name, c.pid, c.cpu) {
		if v, ok := s.values[k]; ok {
			v.ID = c.id
			return v
		}
	}
	return perfevent.Value{Raw: 1, Enabled: 10, Running: 10, ID: c.id}
}

// stillOpen lists the counters not closed.
func (s *scripted) stillOpen() []string {
	var out []string
	for _, c := range s.opened {
		if !c.closed {
			out = append(out, fmt.Sprintf("%s@%d/%d", c.name, c.pid, c.cpu))
		}
	}
	return out
}

func (c *fakeCounter) Read() (perfevent.Value, error) {
	if c.closed {
		return perfevent.Value{}, errors.New("read after close")
	}
	if c.attr.ReadFormat&perfevent.FormatGroup != 0 {
		return perfevent.Value{}, errors.New("a group member read on its own: the session must read the group once")
	}
	return c.s.value(c), nil
}

func (c *fakeCounter) ReadGroup() ([]perfevent.Value, error) {
	if c.leader != nil {
		return nil, errors.New("group read from a member")
	}
	vs := []perfevent.Value{c.s.value(c)}
	for _, m := range c.members {
		if !m.closed {
			vs = append(vs, c.s.value(m))
		}
	}
	return vs, nil
}

func (c *fakeCounter) ID() uint64    { return c.id }
func (c *fakeCounter) Enable() error { return nil }
func (c *fakeCounter) Close() error {
	if c.closed {
		return errors.New("closed twice")
	}
	c.closed = true
	return nil
}

// groupEvents builds events in perf syntax order: each []string is one {..} group.
func groupEvents(groups ...[]string) []Event {
	var out []Event
	for gi, g := range groups {
		for i, n := range g {
			a := perfevent.Attr{Type: perfevent.TypeSoftware, ReadFormat: perfevent.FormatTotalTimeEnabled | perfevent.FormatTotalTimeRunning}
			if len(g) > 1 {
				a.ReadFormat |= perfevent.FormatGroup | perfevent.FormatID
			}
			out = append(out, Event{Name: n, Group: gi, Leader: i == 0 && len(g) > 1, Attr: a})
		}
	}
	return out
}

func systemReq(events []Event, cpus ...int) *Request {
	return &Request{Mode: System, Events: events, CPUs: cpus, Repeat: 1}
}

// begin opens a session of k for req and returns it with its first reading.
func begin(t *testing.T, k Kernel, req *Request) ([]Reading, Session) {
	t.Helper()
	s, err := k.Begin(context.Background(), req, 0)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.Read()
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	return rs, s
}

func TestSessionGroupRefusedAsAWhole(t *testing.T) {
	sc := &scripted{refuse: map[string]error{"c": perfevent.ErrInvalid}}
	req := systemReq(groupEvents([]string{"a", "b", "c", "d"}, []string{"e"}), 0)
	rs, s := begin(t, Kernel{Open: sc.open}, req)
	// a and b were opened before c was refused: closed at once, and not left to the end.
	if open := sc.stillOpen(); len(open) != 1 || open[0] != "e@-1/0" {
		t.Errorf("open after the refusal: %v, want only e", open)
	}
	for _, r := range rs[:4] {
		if !errors.Is(r.Err, ErrGroupTooLarge) || !strings.Contains(r.Err.Error(), `member 3 of 4, "c"`) {
			t.Errorf("%s: %v", req.Events[r.Event].Name, r.Err)
		}
	}
	if rs[4].Err != nil || rs[4].Value.Raw != 1 {
		t.Errorf("e: %+v", rs[4])
	}
	s.Close()
	if open := sc.stillOpen(); len(open) != 0 {
		t.Errorf("open after Close: %v", open)
	}
	res := countsOf(req, rs)
	if res[0].Status != result.NotCounted || res[0].Reason != result.GroupTooLarge || res[4].Status != result.Counted || res[4].Reason != "" {
		t.Errorf("statuses %s/%s %s", res[0].Status, res[0].Reason, res[4].Status)
	}
}

func countsOf(req *Request, rs []Reading) []result.Count { return counts(req, rs) }

// TestSessionWeakGroup: a weak group ({...}:W) the kernel refuses as a whole is counted as
// separate events, as perf counts it; a group that fits stays a group, and a group without
// :W that does not fit is still not counted.
func TestSessionWeakGroup(t *testing.T) {
	sc := &scripted{groupLimit: 3}
	evs := groupEvents([]string{"a", "b", "c", "d"}, []string{"e", "f"}, []string{"g", "h", "i", "j"})
	for i := 0; i < 4; i++ {
		evs[i].Weak = true
		if i == 0 {
			evs[i].Attr.Disabled, evs[i].Attr.EnableOnExec = true, true
		}
	}
	req := systemReq(evs, 0)
	k := Kernel{Open: sc.open}
	s, err := k.Begin(context.Background(), req, 0)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	alone := 0
	for _, c := range sc.opened {
		if c.closed || c.name > "d" {
			continue
		}
		alone++
		if c.leader != nil || c.attr.ReadFormat&perfevent.FormatGroup != 0 || !c.attr.Disabled || !c.attr.EnableOnExec {
			t.Errorf("%s opened %+v (leader %v), want alone, disabled until the exec", c.name, c.attr, c.leader != nil)
		}
	}
	if alone != 4 {
		t.Errorf("%d of a..d open on their own, want 4", alone)
	}
	cs := countsOf(req, rs)
	groups := map[int]bool{}
	for _, c := range cs[:4] {
		if c.Status != result.Counted || groups[c.Group] || c.Leader {
			t.Errorf("%s: %s group %d leader %v: want counted in a group of its own", c.Event, c.Status, c.Group, c.Leader)
		}
		groups[c.Group] = true
	}
	if cs[4].Status != result.Counted || cs[4].Group != cs[5].Group || !cs[4].Leader {
		t.Errorf("e,f: %+v %+v, want a group that fits kept", cs[4], cs[5])
	}
	for _, c := range cs[6:] {
		if c.Status != result.NotCounted || c.Reason != result.GroupTooLarge {
			t.Errorf("%s without :W: %s %s, want not counted, group too large", c.Event, c.Status, c.Reason)
		}
	}
	if n := s.Notes(); len(n) != 1 || !strings.Contains(n[0], "weak group {a,b,c,d} did not fit") {
		t.Errorf("notes %q", n)
	}
	s.Close()
	if open := sc.stillOpen(); len(open) != 0 {
		t.Errorf("open after Close: %v", open)
	}
}

func TestSessionLeaderRefused(t *testing.T) {
	sc := &scripted{refuse: map[string]error{"a": perfevent.ErrNotSupported}}
	req := systemReq(groupEvents([]string{"a", "b"}), 0)
	rs, s := begin(t, Kernel{Open: sc.open}, req)
	defer s.Close()
	if !errors.Is(rs[0].Err, perfevent.ErrNotSupported) || errors.Is(rs[0].Err, ErrGroupLeader) {
		t.Errorf("leader: %v", rs[0].Err)
	}
	if !errors.Is(rs[1].Err, ErrGroupLeader) || !strings.Contains(rs[1].Err.Error(), `refused ("a")`) {
		t.Errorf("member: %v", rs[1].Err)
	}
	if sc.opens != 1 {
		t.Errorf("%d opens: members of a refused leader must not be tried", sc.opens)
	}
	c := counts(req, rs)
	if c[0].Reason != result.Unsupported || c[1].Reason != result.GroupLeader || c[1].Status != result.NotSupported {
		t.Errorf("reasons: %+v", c)
	}
}

// TestSessionUserOnlyRetry: a task counter refused for counting kernel time is retried in
// user space only and says so; system-wide counting is never retried (the refusal stands).
func TestSessionUserOnlyRetry(t *testing.T) {
	sc := &scripted{kernelRefused: []string{"task-clock"}}
	k := Kernel{Open: sc.open, Threads: func(pid int) ([]int, error) { return []int{pid}, nil },
		Process: func(int) (byte, int, error) { return 'S', 0, nil }}
	req := &Request{Mode: Attach, PIDs: []int{4242}, Events: groupEvents([]string{"task-clock"}, []string{"page-faults"}), Repeat: 1}
	rs, s := begin(t, k, req)
	notes := s.Notes()
	s.Close()
	if rs[0].Err != nil || len(notes) != 1 || !strings.Contains(notes[0], "counting user space only (as :u) for task-clock:") {
		t.Errorf("readings %+v notes %q", rs, notes)
	}
	if c := sc.opened[0]; !c.attr.ExcludeKernel || !c.attr.ExcludeHV {
		t.Errorf("retried attr %+v: want exclude_kernel and exclude_hv", c.attr)
	}
	fc := host.Probe(os.DirFS("../host/testdata/hosts/fc-kvm"), os.DirFS("../host/testdata/hosts/fc-kvm-sys"))
	_, err := Kernel{Open: sc.open, Machine: fc}.Begin(context.Background(), systemReq(groupEvents([]string{"task-clock"}), 0), 0)
	if !errors.Is(err, perfevent.ErrPermission) || !strings.Contains(err.Error(), "kernel.perf_event_paranoid is 2;") {
		t.Errorf("system-wide: %v, want the permission error naming the machine's perf_event_paranoid (2)", err)
	}
	if _, err := (Kernel{Open: sc.open}).Begin(context.Background(), &Request{Mode: Attach, PIDs: []int{9}, Events: req.Events}, 0); !errors.Is(err, errNoMachine) {
		t.Errorf("attach without a machine: %v, want errNoMachine", err)
	}
	if open := sc.stillOpen(); len(open) != 0 {
		t.Errorf("still open: %v", open)
	}
}

// TestSessionTargets: attach opens every event on every thread of every process; system mode
// on every CPU; Read sums them (or keeps CPUs apart with -A).
func TestSessionTargets(t *testing.T) {
	sc := &scripted{values: map[string]perfevent.Value{
		"cs@10/-1": {Raw: 1, Enabled: 5, Running: 5}, "cs@11/-1": {Raw: 2, Enabled: 5, Running: 5},
		"cs@20/-1": {Raw: 4, Enabled: 5, Running: 5},
		"cs@-1/0":  {Raw: 7, Enabled: 9, Running: 9}, "cs@-1/3": {Raw: 8, Enabled: 9, Running: 9},
	}}
	threads := map[int][]int{1: {10, 11}, 2: {20}}
	k := Kernel{Open: sc.open, Threads: func(pid int) ([]int, error) { return threads[pid], nil },
		Process: func(int) (byte, int, error) { return 'S', 0, nil }}
	req := &Request{Mode: Attach, PIDs: []int{1, 2}, Events: groupEvents([]string{"cs"}), Repeat: 1}
	rs, s := begin(t, k, req)
	s.Close()
	if c := counts(req, rs); len(c) != 1 || c[0].Raw != 7 || c[0].Enabled != 15 {
		t.Errorf("attach: %+v, want 1+2+4 over three threads", c)
	}
	req = systemReq(groupEvents([]string{"cs"}), 0, 3)
	req.PerCPU = true
	rs, s = begin(t, k, req)
	s.Close()
	c := counts(req, rs)
	if len(c) != 2 || c[0].CPU != 0 || c[0].Raw != 7 || c[1].CPU != 3 || c[1].Raw != 8 {
		t.Errorf("per CPU: %+v", c)
	}
	k.Threads = func(pid int) ([]int, error) { return nil, errors.New("no such process") }
	if _, err := k.Begin(context.Background(), &Request{Mode: Attach, PIDs: []int{9}, Events: req.Events}, 0); err == nil || !strings.Contains(err.Error(), "process 9") {
		t.Errorf("vanished process: %v", err)
	}
	if open := sc.stillOpen(); len(open) != 0 {
		t.Errorf("still open: %v", open)
	}
}

// TestSessionEveryThread: --per-thread -a counts every thread of every process on its own; a
// thread gone before its open (ESRCH) is no row, and threads that counted nothing are left
// out, as perf leaves them out.
func TestSessionEveryThread(t *testing.T) {
	sc := &scripted{refuse: map[string]error{"cs@11/-1": unix.ESRCH, "cycles": perfevent.ErrNotSupported},
		values: map[string]perfevent.Value{
			"cs@10/-1": {Raw: 3, Enabled: 5, Running: 5}, "cs@20/-1": {Raw: 0, Enabled: 5, Running: 5},
			"cs@21/-1": {Raw: 4, Enabled: 5, Running: 5},
		}}
	threads := map[int][]int{1: {10, 11}, 2: {20, 21}}
	k := Kernel{Open: sc.open, Threads: func(pid int) ([]int, error) { return threads[pid], nil },
		Pids: func() ([]int, error) { return []int{1, 2, 3}, nil }} // 3 is gone: no threads
	req := &Request{Mode: System, PerThread: true, Events: groupEvents([]string{"cs"}, []string{"cycles"}), Repeat: 1,
		ThreadName: func(tid int) string { return "t" }}
	rs, s := begin(t, k, req)
	s.Close()
	var got []string
	for _, c := range counts(req, rs) {
		got = append(got, fmt.Sprintf("%s %s %d", c.Thread, c.Event, c.Raw))
	}
	if want := "t-10 cs 3,t-21 cs 4"; strings.Join(got, ",") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, ","), want)
	}
	for _, r := range rs {
		if r.TID == 11 {
			t.Errorf("the gone thread 11 has a slot: %+v", r)
		}
	}
	if open := sc.stillOpen(); len(open) != 0 {
		t.Errorf("still open: %v", open)
	}
}

// TestSessionGroupReadOnce: a group is read once through its leader; members pick their
// values by id (the fake counters refuse a member read on its own).
func TestSessionGroupReadOnce(t *testing.T) {
	sc := &scripted{values: map[string]perfevent.Value{"x": {Raw: 3, Enabled: 4, Running: 2}, "y": {Raw: 5, Enabled: 4, Running: 2}}}
	req := systemReq(groupEvents([]string{"x", "y"}), 0)
	rs, s := begin(t, Kernel{Open: sc.open}, req)
	s.Close()
	c := counts(req, rs)
	if c[0].Raw != 3 || c[1].Raw != 5 || c[1].Scaled != 10 {
		t.Errorf("group read: %+v", c)
	}
}

// TestSessionCleanupOnFDLimit: when the fd limit is hit part-way through a group, every
// counter already opened is closed (22 were left open in a 40-member group before).
func TestSessionCleanupOnFDLimit(t *testing.T) {
	names := make([]string, 40)
	for i := range names {
		names[i] = fmt.Sprintf("e%d", i)
	}
	sc := &scripted{failAt: 23}
	_, err := Kernel{Open: sc.open}.Begin(context.Background(), systemReq(groupEvents(names), 0), 0)
	if !errors.Is(err, perfevent.ErrTooManyFiles) {
		t.Fatalf("err %v, want too many open files", err)
	}
	if open := sc.stillOpen(); len(open) != 0 {
		t.Errorf("%d counters left open: %v", len(open), open)
	}
}

// TestSessionGuestFilterRetry: a PMU that refuses exclude_guest (msr) is retried without it,
// as perf does, and the note says so (msr/tsc/ was <not supported> before).
func TestSessionGuestFilterRetry(t *testing.T) {
	sc := &scripted{}
	open := func(name string, attr perfevent.Attr, pid, cpu int, leader Counter) (Counter, error) {
		if attr.ExcludeGuest {
			return nil, &perfevent.OpenError{Event: name, Err: perfevent.ErrInvalid}
		}
		return sc.open(name, attr, pid, cpu, leader)
	}
	evs := groupEvents([]string{"msr/tsc/"})
	evs[0].Attr.ExcludeGuest = true
	rs, s := begin(t, Kernel{Open: open}, systemReq(evs, 0))
	notes := s.Notes()
	s.Close()
	if rs[0].Err != nil || len(notes) != 1 || !strings.Contains(notes[0], "msr/tsc/ counted with virtual machines' time included") {
		t.Errorf("reading %+v notes %q", rs[0], notes)
	}
}

// TestSessionAttachCauses: attaching to a zombie says there is nothing left to count (it
// printed <not supported> and exited 0), and a permission refusal for another user's process
// names ptrace access, not perf_event_paranoid (which was already permissive enough).
func TestSessionAttachCauses(t *testing.T) {
	sc := &scripted{refuse: map[string]error{"task-clock@77/-1": perfevent.ErrPermission}}
	k := Kernel{Open: sc.open,
		Threads: func(pid int) ([]int, error) { return []int{pid}, nil },
		Process: func(pid int) (byte, int, error) {
			if pid == 66 {
				return 'Z', 0, nil
			}
			return 'S', 4321, nil
		}}
	req := &Request{Mode: Attach, PIDs: []int{66}, Events: groupEvents([]string{"task-clock"}), Repeat: 1}
	if _, err := k.Begin(context.Background(), req, 0); err == nil || !strings.Contains(err.Error(), "process 66 has exited (a zombie") {
		t.Errorf("zombie: %v", err)
	}
	req.PIDs = []int{77}
	_, err := k.Begin(context.Background(), req, 0)
	if os.Geteuid() != 4321 && os.Geteuid() != 0 && (err == nil || !strings.Contains(err.Error(), "belongs to uid 4321: counting another user's process needs ptrace access")) {
		t.Errorf("another user's process: %v", err)
	}
	if err == nil {
		t.Error("a refused attach succeeded")
	}
}

// TestCountsPerCore (issue 15 item 12): with --per-core's aggregation the per-CPU readings
// of a core's hardware threads are summed into the row of its first CPU, core by core.
func TestCountsPerCore(t *testing.T) {
	req := systemReq(groupEvents([]string{"a"}, []string{"b"}), 0, 1, 2, 3)
	req.PerCPU = true
	req.Aggregation = &result.Aggregation{By: "core", Groups: []result.AggrGroup{
		{ID: "S0-D0-C0", CPUs: []int{0, 2}}, {ID: "S0-D0-C1", CPUs: []int{1, 3}}}}
	var rs []Reading
	for ev := 0; ev < 2; ev++ {
		for cpu := 0; cpu < 4; cpu++ {
			rs = append(rs, Reading{Event: ev, CPU: cpu, Value: perfevent.Value{Raw: uint64(10*ev + cpu + 1), Enabled: 5, Running: 5}})
		}
	}
	var got []string
	for _, c := range countsOf(req, rs) {
		got = append(got, fmt.Sprintf("%s@%d=%d/%d", c.Event, c.CPU, c.Raw, c.Enabled))
	}
	// a: CPUs 0+2 = 1+3, 1+3 = 2+4; b: 11+13, 12+14; enabled times add up too.
	if want := "a@0=4/10 b@0=24/10 a@1=6/10 b@1=26/10"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}

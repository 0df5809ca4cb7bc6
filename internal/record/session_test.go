package record

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
)

// memFile is an in-memory io.WriteSeeker; past limit bytes (when > 0) writes fail with
// ENOSPC, as on a full disk.
type memFile struct {
	mu    sync.Mutex
	b     []byte
	off   int64
	limit int64
}

func (f *memFile) setLimit(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.limit = int64(len(f.b)) + n
}

func (f *memFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(p)
	if f.limit > 0 && f.off+int64(n) > f.limit {
		n = int(max(0, f.limit-f.off))
	}
	if end := f.off + int64(n); end > int64(len(f.b)) {
		f.b = append(f.b, make([]byte, end-int64(len(f.b)))...)
	}
	copy(f.b[f.off:], p[:n])
	f.off += int64(n)
	if n < len(p) {
		return n, fmt.Errorf("write perf.data: %w", unix.ENOSPC)
	}
	return n, nil
}

func (f *memFile) Seek(off int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch whence {
	case io.SeekStart:
		f.off = off
	case io.SeekCurrent:
		f.off += off
	case io.SeekEnd:
		f.off = int64(len(f.b)) + off
	}
	return f.off, nil
}

// dataSize is the header's data size: what a reader sees of the records.
func (f *memFile) dataSize() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.b) < 56 {
		return 0
	}
	return ne.Uint64(f.b[48:])
}

var cpuClock = Event{Name: "cpu-clock", Attr: perfevent.Attr{Type: perfevent.TypeSoftware, Config: perfevent.SWCPUClock}}

// attached is a recording of process 100 on the fake kernel whose exit the test controls.
type attached struct {
	k    *fakeKernel
	s    *Session
	out  *memFile
	gone chan struct{}
}

func startAttached(t *testing.T, k *fakeKernel, out *memFile, req *Request) (*attached, error) {
	a := &attached{k: k, out: out, gone: make(chan struct{})}
	if req.Mode == Attach && req.PIDs == nil {
		req.PIDs = []int{100}
	}
	if req.Events == nil {
		req.Events = []Event{cpuClock}
	}
	if req.Freq == 0 && req.Period == 0 {
		req.Freq = 4000
	}
	kern := Kernel{Machine: fakeMachine("100000", 'S'), Open: k.open, Gone: func(pid int) (<-chan struct{}, error) {
		return a.gone, nil
	}}
	var err error
	a.s, err = Start(req, kern, out)
	return a, err
}

// run runs the session in the background; the returned function waits for its result (a
// generous limit only detects a hang).
func (a *attached) run(t *testing.T, ctx context.Context) func() *Result {
	type ran struct {
		r   *Result
		err error
	}
	ch := make(chan ran, 1)
	go func() {
		r, err := a.s.Run(ctx)
		ch <- ran{r, err}
	}()
	return func() *Result {
		t.Helper()
		select {
		case r := <-ch:
			if r.err != nil {
				t.Fatal(r.err)
			}
			return r.r
		case <-time.After(time.Minute):
			t.Fatal("Run did not return a minute after the end")
			return nil
		}
	}
}

// waitDrained waits until the session has drained the ring, and its flush has reached the
// file's header.
func waitDrained(t *testing.T, r *fakeRing, out *memFile, size uint64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if r.pending() == 0 && (size == 0 || out.dataSize() >= size) {
			return
		}
	}
	t.Fatal("the session never drained the ring")
}

// readBack reads the recording with perfdata and counts its records by type.
func readBack(t *testing.T, out *memFile) (*perfdata.File, map[uint32]int, []perfdata.Record) {
	t.Helper()
	f, err := perfdata.NewFile(bytes.NewReader(out.b), int64(len(out.b)))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[uint32]int{}
	var recs []perfdata.Record
	for rs := f.Records(); ; {
		r, err := rs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		counts[r.Header().Type]++
		recs = append(recs, r)
	}
	return f, counts, recs
}

// TestAttachDyingTarget: -p of a process with two threads on two CPUs: one counter per
// thread and CPU, one ring per CPU; samples are drained while it runs; it dies (its rings
// hang up, its exit is seen) and the recording is finalized with every sample, the
// threads' names and maps, the kernel's map and build-id.
func TestAttachDyingTarget(t *testing.T) {
	testenv.CheckFDs(t)
	k := newFake(t)
	out := &memFile{}
	a, err := startAttached(t, k, out, &Request{Mode: Attach})
	if err != nil {
		t.Fatal(err)
	}
	defer k.checkClosed(t)
	defer a.s.Close()
	if len(k.opened) != 4 {
		t.Fatalf("%d counters, want 2 threads x 2 CPUs", len(k.opened))
	}
	rings := k.rings()
	if len(rings) != 2 {
		t.Fatalf("%d rings, want one per CPU", len(rings))
	}
	for _, c := range k.opened {
		if c.ring == nil && (c.output == nil || c.output.cpu != c.cpu) {
			t.Errorf("counter %d/%d writes to no ring of its CPU", c.pid, c.cpu)
		}
		a := c.attr
		if !a.Freq || a.SamplePeriod != 4000 || a.SampleType != perfevent.SampleIP|perfevent.SampleTID|perfevent.SampleTime|perfevent.SamplePeriod ||
			!a.Inherit || a.EnableOnExec || !a.Disabled || !a.SampleIDAll || !a.Mmap2 || !a.Comm || !a.Task {
			t.Errorf("attach attribute: %+v", a)
		}
	}
	wait := a.run(t, context.Background())
	for i := 0; i < 10; i++ {
		rings[0].push(sample(0x400100, 100, 100, uint64(1000+i)))
	}
	waitDrained(t, rings[0], out, 1)
	for i := 0; i < 4; i++ {
		rings[1].push(sample(0x400200, 100, 101, uint64(2000+i)))
	}
	rings[1].push(kernelSample(0xffffffff81000100, 100, 101, 2004)) // the kernel's build-id is listed
	for _, r := range rings {                                       // the task dies: its rings hang up, then its exit is seen
		r.hangUp()
	}
	close(a.gone)
	res := wait()
	if res.Samples != 15 || res.Unwritten != 0 || res.WriteErr != nil {
		t.Fatalf("result %+v, want 15 samples", res)
	}
	for _, c := range k.opened {
		if c.enabled {
			t.Errorf("counter %d/%d still enabled after the end", c.pid, c.cpu)
		}
	}
	f, counts, recs := readBack(t, out)
	if counts[perfdata.RecordSample] != 15 || counts[perfdata.RecordComm] != 2 || counts[perfdata.RecordMmap2] != 1 || counts[perfdata.RecordMmap] != 1 {
		t.Errorf("records by type %v: want 15 samples, 2 COMM, 1 MMAP2, the kernel's MMAP", counts)
	}
	if f.Unfinished || f.Features.Hostname != "fakehost" || len(f.Features.BuildIDs) == 0 ||
		f.Features.BuildIDs[0].Filename != "[kernel.kallsyms]" || hex.EncodeToString(f.Features.BuildIDs[0].ID) != kernelID ||
		f.Features.BuildIDs[0].Misc != perfdata.MiscKernel {
		t.Errorf("features %+v: want the kernel's build-id %s first", f.Features, kernelID)
	}
	for _, r := range recs {
		if m, ok := r.(*perfdata.Mmap); ok && m.Type == perfdata.RecordMmap2 && (m.Filename != "/bin/target" || m.Addr != 0x400000 || m.Prot != 5) {
			t.Errorf("synthesized map %+v", m)
		}
	}
}

// TestLostAndThrottled: the kernel's LOST, LOST_SAMPLES and THROTTLE records are counted
// and kept in the file, as perf keeps them.
func TestLostAndThrottled(t *testing.T) {
	k := newFake(t)
	out := &memFile{}
	a, err := startAttached(t, k, out, &Request{Mode: Attach})
	if err != nil {
		t.Fatal(err)
	}
	defer a.s.Close()
	id := k.opened[0].id
	r := k.rings()[0]
	r.push(sample(0x400100, 100, 100, 1), lost(id, 7, 100, 100, 2), lostSamples(3, 100, 100, 3),
		throttle(5, id, 100, 100, 4), throttle(6, id, 100, 100, 5), sample(0x400100, 100, 100, 6))
	close(a.gone)
	res := a.run(t, context.Background())()
	if res.Samples != 2 || res.Lost != 7 || res.LostSamples != 3 || res.Throttled != 1 {
		t.Fatalf("result %+v: want 2 samples, 7 lost, 3 lost samples, 1 throttle", res)
	}
	_, counts, recs := readBack(t, out)
	if counts[perfdata.RecordLost] != 1 || counts[perfdata.RecordLostSamples] != 1 || counts[perfdata.RecordThrottle] != 1 || counts[perfdata.RecordUnthrottle] != 1 {
		t.Fatalf("records by type %v", counts)
	}
	for _, r := range recs {
		if l, ok := r.(*perfdata.Lost); ok && (l.Lost != 7 || l.LostID != id) {
			t.Errorf("lost record %+v", l)
		}
	}
}

// TestFullDisk: when the file cannot grow, the recording keeps every round written before
// (a file perfdata reads, with exactly Result.Samples samples), goes on draining the rings
// until the end, and counts what it could not write.
func TestFullDisk(t *testing.T) {
	k := newFake(t)
	out := &memFile{}
	a, err := startAttached(t, k, out, &Request{Mode: Attach})
	if err != nil {
		t.Fatal(err)
	}
	defer a.s.Close()
	wait := a.run(t, context.Background())
	r := k.rings()[0]
	for i := 0; i < 100; i++ {
		r.push(sample(0x400100, 100, 100, uint64(i)))
	}
	waitDrained(t, r, out, 100*40)
	out.setLimit(1000) // room for 25 more samples, not for 1000
	for i := 0; i < 1000; i++ {
		r.push(sample(0x400100, 100, 100, uint64(1000+i)))
	}
	waitDrained(t, r, out, 0)
	for i := 0; i < 50; i++ { // the workload runs on: still drained, not written
		r.push(sample(0x400100, 100, 100, uint64(3000+i)))
	}
	waitDrained(t, r, out, 0)
	close(a.gone)
	res := wait()
	if !errors.Is(res.WriteErr, unix.ENOSPC) || res.Samples < 100 || res.Samples+res.Unwritten != 1150 {
		t.Fatalf("result %+v: want ENOSPC, at least the first 100 samples kept, 1150 in all", res)
	}
	t.Logf("kept %d samples (%d bytes), %d not written: %v", res.Samples, res.Bytes, res.Unwritten, res.WriteErr)
	f, counts, _ := readBack(t, out)
	if uint64(counts[perfdata.RecordSample]) != res.Samples || f.Data.Size != res.Bytes || f.Unfinished {
		t.Fatalf("the file holds %d samples in %d bytes (unfinished %v), the result says %d in %d", counts[perfdata.RecordSample],
			f.Data.Size, f.Unfinished, res.Samples, res.Bytes)
	}
}

// TestHeaderWriteFails: a disk full from the start fails Start, and everything opened is
// released.
func TestHeaderWriteFails(t *testing.T) {
	testenv.CheckFDs(t)
	k := newFake(t)
	_, err := startAttached(t, k, &memFile{limit: 10}, &Request{Mode: Attach})
	if !errors.Is(err, unix.ENOSPC) {
		t.Fatalf("Start on a full disk: %v", err)
	}
	k.checkClosed(t)
}

// TestSIGINTEndsSystemWide: -a ends at ctx's end (Ctrl-C) and says which CPU each sample
// came from.
func TestSIGINTEndsSystemWide(t *testing.T) {
	testenv.CheckFDs(t)
	k := newFake(t)
	out := &memFile{}
	a, err := startAttached(t, k, out, &Request{Mode: System})
	if err != nil {
		t.Fatal(err)
	}
	defer k.checkClosed(t)
	defer a.s.Close()
	if len(k.opened) != 2 || k.opened[0].pid != perfevent.AllTasks || k.opened[0].attr.Inherit ||
		k.opened[0].attr.SampleType&perfevent.SampleCPU == 0 {
		t.Fatalf("system-wide counters: %+v", k.opened)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := a.run(t, ctx)
	cancel()
	if res := wait(); res.Samples != 0 || res.WriteErr != nil {
		t.Fatalf("result %+v", res)
	}
	if f, _, _ := readBack(t, out); f.Unfinished {
		t.Fatal("not finalized")
	}
}

// TestFallbacks: what the kernel refuses is retried as perf and pmc stat retry it, and
// each change is said; the file describes the attributes really opened.
func TestFallbacks(t *testing.T) {
	cycles := Event{Name: "cycles", Attr: perfevent.Attr{Type: perfevent.TypeHardware, Config: 0}}
	for _, c := range []struct {
		name          string
		refuse        map[string]error
		kernelRefused []string
		fallback      bool
		want          string // the event sampled
		userOnly      bool
		notes         []string
		err           string
	}{
		{name: "no-pmu", refuse: map[string]error{"cycles": perfevent.ErrNotSupported}, fallback: true,
			want: "cpu-clock", notes: []string{"no hardware PMU here (cycles not supported): sampling cpu-clock instead"}},
		{name: "no-pmu-asked", refuse: map[string]error{"cycles": perfevent.ErrNotSupported},
			err: "try -e cpu-clock"},
		{name: "paranoid", kernelRefused: []string{"cycles"}, want: "cycles", userOnly: true,
			notes: []string{"sampling user space only (as :u) for cycles: kernel.perf_event_paranoid is 2;"}},
		{name: "paranoid-no-pmu", refuse: map[string]error{"cycles": perfevent.ErrNotSupported},
			kernelRefused: []string{"cycles", "cpu-clock"}, fallback: true, want: "cpu-clock", userOnly: true,
			notes: []string{"no hardware PMU", "sampling user space only (as :u) for cpu-clock"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			testenv.CheckFDs(t)
			k := newFake(t)
			k.refuse, k.kernelRefused = c.refuse, c.kernelRefused
			req := &Request{Mode: Attach, Events: []Event{cycles}}
			if c.fallback {
				req.Fallback = []Event{cpuClock}
			}
			out := &memFile{}
			a, err := startAttached(t, k, out, req)
			defer k.checkClosed(t)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Start: %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.s.Close()
			notes := strings.Join(a.s.Notes(), "\n")
			for _, n := range c.notes {
				if !strings.Contains(notes, n) {
					t.Errorf("notes %q, want %q", notes, n)
				}
			}
			if len(a.s.Notes()) != len(c.notes) {
				t.Errorf("notes %q, want %d", notes, len(c.notes))
			}
			close(a.gone)
			a.run(t, context.Background())()
			f, _, _ := readBack(t, out)
			kept := 0
			for _, o := range k.opened {
				if o.name == c.want && !o.closed {
					t.Errorf("%s left open", o.name)
				}
				if o.name == c.want {
					kept++
					if o.attr.ExcludeKernel != c.userOnly {
						t.Errorf("%s opened with exclude_kernel %v", o.name, o.attr.ExcludeKernel)
					}
				}
			}
			if kept != 4 || len(f.Events) != 1 || f.Events[0].Name != c.want ||
				(f.Events[0].Attr.Flags&perfdata.FlagExcludeKernel != 0) != c.userOnly || len(f.Events[0].IDs) != 4 {
				t.Errorf("%d counters of %s; the file's events %+v", kept, c.want, f.Events)
			}
		})
	}
}

// TestPeriodAndFrequency: -c is the attribute's period, never each sample's (with
// PERF_SAMPLE_PERIOD the kernel samples every software event); -F above
// kernel.perf_event_max_sample_rate is lowered to it, with a note.
func TestPeriodAndFrequency(t *testing.T) {
	k := newFake(t)
	a, err := startAttached(t, k, &memFile{}, &Request{Mode: Attach, Period: 100000,
		Events: []Event{{Name: "page-faults", Attr: perfevent.Attr{Type: perfevent.TypeSoftware, Config: 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	a.s.Close()
	if at := k.opened[0].attr; at.Freq || at.SamplePeriod != 100000 || at.SampleType&perfevent.SamplePeriod != 0 {
		t.Errorf("-c 100000: %+v", at)
	}
	k = newFake(t)
	req := &Request{Mode: Attach, Freq: 1000000, PIDs: []int{100}, Events: []Event{cpuClock}}
	kern := Kernel{Machine: fakeMachine("25000\n", 'S'), Open: k.open, Gone: func(int) (<-chan struct{}, error) { return nil, nil }}
	s, err := Start(req, kern, &memFile{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if at := k.opened[0].attr; !at.Freq || at.SamplePeriod != 25000 || at.SampleType&perfevent.SamplePeriod == 0 {
		t.Errorf("-F 1000000 above a 25000 Hz limit: %+v", at)
	}
	if n := strings.Join(s.Notes(), ""); !strings.Contains(n, "-F 1000000 is above kernel.perf_event_max_sample_rate (25000 Hz): sampling at 25000 Hz") {
		t.Errorf("notes %q", n)
	}
}

// TestTargetsGone: -p of a zombie, of a missing process, of a process whose threads all
// exit while their counters are being opened, says the process has exited (not
// "invalid event attributes (ESRCH)"); a thread that exits meanwhile is skipped.
func TestTargetsGone(t *testing.T) {
	for _, c := range []struct {
		name   string
		state  byte
		exited []int
		pid    int
		err    string
		opened int
	}{
		{name: "zombie", state: 'Z', pid: 100, err: "process 100 has exited"},
		{name: "missing", state: 'S', pid: 999, err: "process 999: no such process"},
		{name: "all-threads-exit", state: 'S', pid: 100, exited: []int{100, 101}, err: "process 100 has exited"},
		{name: "one-thread-exits", state: 'S', pid: 100, exited: []int{101}, opened: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			testenv.CheckFDs(t)
			k := newFake(t)
			for _, tid := range c.exited {
				k.exited[tid] = true
			}
			kern := Kernel{Machine: fakeMachine("100000", c.state), Open: k.open,
				Gone: func(int) (<-chan struct{}, error) { return make(chan struct{}), nil }}
			s, err := Start(&Request{Mode: Attach, PIDs: []int{c.pid}, Events: []Event{cpuClock}, Freq: 4000}, kern, &memFile{})
			defer k.checkClosed(t)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "ESRCH") {
					t.Fatalf("Start: %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if len(k.opened) != c.opened {
				t.Fatalf("%d counters, want %d", len(k.opened), c.opened)
			}
		})
	}
}

// TestOpenFailureReleasesEverything: whichever open fails, every counter and ring opened
// before it is released, and no fd leaks.
func TestOpenFailureReleasesEverything(t *testing.T) {
	testenv.CheckFDs(t)
	for failAt := 1; failAt <= 4; failAt++ {
		k := newFake(t)
		k.failAt = failAt
		_, err := startAttached(t, k, &memFile{}, &Request{Mode: Attach})
		if !errors.Is(err, perfevent.ErrTooManyFiles) {
			t.Fatalf("open %d failing: %v", failAt, err)
		}
		k.checkClosed(t)
	}
}

// TestLaunchFullDiskWorkloadRunsOn: a launched workload is sampled from its exec (counters
// on its pid, enable_on_exec, inherited); when the disk fills up it is not killed: it runs
// to its own end and its exit status is the recording's.
func TestLaunchFullDiskWorkloadRunsOn(t *testing.T) {
	testenv.CheckFDs(t)
	release, stdin := pipe(t)
	k := newFake(t)
	out := &memFile{}
	req := &Request{Mode: Launch, Command: []string{"sh", "-c", "read x; exit 7"}, Path: "/bin/sh",
		Stdin: release, Events: []Event{cpuClock}, Freq: 4000}
	s, err := Start(req, Kernel{Machine: fakeMachine("100000", 'S'), Open: k.open}, out)
	release.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer k.checkClosed(t)
	defer s.Close()
	pid := s.child.Pid()
	for _, c := range k.opened {
		if c.pid != pid || !c.attr.EnableOnExec || !c.attr.Inherit || !c.attr.Disabled {
			t.Fatalf("launch counter on %d (workload %d): %+v", c.pid, pid, c.attr)
		}
	}
	a := &attached{k: k, s: s, out: out}
	wait := a.run(t, context.Background())
	r := k.rings()[0]
	for i := 0; i < 10; i++ {
		r.push(sample(0x400100, uint32(pid), uint32(pid), uint64(i)))
	}
	waitDrained(t, r, out, 10*40)
	out.setLimit(0)
	for i := 0; i < 10; i++ {
		r.push(sample(0x400100, uint32(pid), uint32(pid), uint64(100+i)))
	}
	waitDrained(t, r, out, 0)
	stdin.Close() // the workload reads EOF and exits 7 on its own
	res := wait()
	if res.ExitStatus != 7 || !errors.Is(res.WriteErr, unix.ENOSPC) || res.Samples != 10 || res.Unwritten != 10 {
		t.Fatalf("result %+v: want exit 7, ENOSPC, 10 samples kept and 10 not written", res)
	}
}

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestSummary: what was lost is said, perf's summary line closes, and samples lost to a
// full disk make the exit status non-zero when the workload's is zero.
func TestSummary(t *testing.T) {
	var b strings.Builder
	r := &Result{Samples: 100, Bytes: 3 << 19, Lost: 2, LostSamples: 5, Throttled: 1, Unwritten: 7, WriteErr: fmt.Errorf("writing: %w", unix.ENOSPC)}
	if st := r.Summary(&b, "perf.data"); st != 1 {
		t.Errorf("status %d, want 1", st)
	}
	want := "pmc record: lost 2 records and 5 samples: the rings filled up; sample less often (-F, -c)\n" +
		"pmc record: the kernel throttled sampling 1 times (its interrupts took too long): fewer samples than asked where it did; sample less often (-F, -c)\n" +
		"pmc record: writing: no space left on device: perf.data keeps the first 100 samples (1.500 MB), which perf and pmc read; 7 samples after them were not written (the workload ran on)\n" +
		"[ pmc record: Captured and wrote 1.500 MB perf.data (100 samples) ]\n"
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	r = &Result{Samples: 10, Bytes: 1 << 19, Unwritten: 4, WriteErr: fmt.Errorf("write /dev/stdout: %w", unix.EPIPE)}
	if st := r.Summary(&b, "-"); st != 1 || b.String() != "pmc record: write /dev/stdout: broken pipe: standard output took 10 samples (0.500 MB) before; "+
		"4 samples after them were not written (the workload ran on)\n[ pmc record: Captured and wrote 0.500 MB - (10 samples) ]\n" {
		t.Errorf("a broken pipe: status %d, %q", st, b.String())
	}
	b.Reset()
	if st := (&Result{ExitStatus: 3, Samples: 1}).Summary(&b, "x"); st != 3 || b.String() != "[ pmc record: Captured and wrote 0.000 MB x (1 samples) ]\n" {
		t.Errorf("status %d, %q", st, b.String())
	}
}

// TestFileBuildID: a mapped file's build-id is symbol's reading of it; a path that is now a
// FIFO is not opened for reading (the open would block the end of the recording).
func TestFileBuildID(t *testing.T) {
	self, err := filepath.EvalSymlinks("/bin/sh") // a distribution's binary: it has a build-id
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	info, err := symbol.ReadELFInfo(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(fileBuildID(self)); got != info.BuildID || got == "" {
		t.Errorf("build-id %q, symbol reads %q", got, info.BuildID)
	}
	fifo := t.TempDir() + "/fifo"
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan []byte, 1)
	go func() { done <- fileBuildID(fifo) }()
	select {
	case id := <-done:
		if id != nil {
			t.Errorf("a FIFO's build-id: %x", id)
		}
	case <-time.After(time.Minute):
		t.Fatal("fileBuildID blocked on a FIFO")
	}
}

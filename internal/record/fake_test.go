package record

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/unix"
)

// fakeKernel is an Opener whose answers are scripted per event and target, with rings the
// test fills with records as the kernel would: the engine's own logic (fallbacks, rings,
// the end, losses, write errors, cleanup) runs as on a machine, with no PMU and no
// permission needed. Each ring has a real pipe for the poller: a push makes it readable,
// a dying task hangs it up.
type fakeKernel struct {
	t  *testing.T
	mu sync.Mutex
	// refuse maps "event" or "event@pid/cpu" to the sentinel the kernel answers with.
	refuse map[string]error
	// kernelRefused: events refused with EACCES unless they exclude the kernel.
	kernelRefused []string
	// exited: threads whose open fails with ESRCH.
	exited map[int]bool
	failAt int // > 0: the failAt-th open fails with EMFILE
	opens  int
	opened []*fakeCounter
	nextID uint64
}

type fakeCounter struct {
	k       *fakeKernel
	name    string
	attr    perfevent.Attr
	pid     int
	cpu     int
	id      uint64
	ring    *fakeRing
	output  *fakeCounter
	enabled bool
	closed  bool
}

// fakeRing holds records pushed by the test until Drain; its pipe is what the poller sees.
type fakeRing struct {
	mu     sync.Mutex
	recs   [][]byte
	fds    [2]int // pipe: [0] watched, [1] written at each push, closed at the task's death
	closed bool
	drains int
}

func newFake(t *testing.T) *fakeKernel {
	return &fakeKernel{t: t, refuse: map[string]error{}, exited: map[int]bool{}, nextID: 100}
}

func (k *fakeKernel) open(name string, attr perfevent.Attr, pid, cpu int, leader Counter) (Counter, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.opens++
	oe := &perfevent.OpenError{Event: name, PID: pid, CPU: cpu}
	switch {
	case k.failAt > 0 && k.opens == k.failAt:
		oe.Err, oe.Errno = perfevent.ErrTooManyFiles, unix.EMFILE
		return nil, oe
	case k.exited[pid]:
		oe.Err, oe.Errno = perfevent.ErrInvalid, unix.ESRCH
		return nil, oe
	case slices.Contains(k.kernelRefused, name) && !attr.ExcludeKernel:
		oe.Err, oe.Errno = perfevent.ErrPermission, unix.EACCES
		return nil, oe
	}
	for _, key := range []string{fmt.Sprintf("%s@%d/%d", name, pid, cpu), name} {
		if err, ok := k.refuse[key]; ok {
			oe.Err = err
			return nil, oe
		}
	}
	k.nextID++
	c := &fakeCounter{k: k, name: name, attr: attr, pid: pid, cpu: cpu, id: k.nextID}
	k.opened = append(k.opened, c)
	return c, nil
}

func (c *fakeCounter) KernelID() (uint64, error) { return c.id, nil }
func (c *fakeCounter) Enable() error             { c.enabled = true; return nil }
func (c *fakeCounter) Disable() error            { c.enabled = false; return nil }
func (c *fakeCounter) Close() error              { c.closed = true; return nil }

func (c *fakeCounter) SetOutput(to Counter) error {
	o := to.(*fakeCounter)
	if o.cpu != c.cpu || o.ring == nil {
		return fmt.Errorf("SET_OUTPUT to a counter of cpu %d without a ring", o.cpu)
	}
	c.output = o
	return nil
}

func (c *fakeCounter) MapRing(pages int) (Ring, error) {
	if c.ring != nil {
		return nil, fmt.Errorf("ring mapped twice")
	}
	r := &fakeRing{}
	if err := unix.Pipe2(r.fds[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return nil, err
	}
	c.ring = r
	return r, nil
}

func (r *fakeRing) FD() int { return r.fds[0] }

func (r *fakeRing) Drain(fn func(rec []byte) error) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b [64]byte
	for {
		if n, _ := unix.Read(r.fds[0], b[:]); n <= 0 {
			break
		}
	}
	n := 0
	for _, rec := range r.recs {
		n += len(rec)
		if err := fn(rec); err != nil {
			r.recs = r.recs[1:]
			return n, err
		}
	}
	r.recs = nil
	r.drains++
	return n, nil
}

func (r *fakeRing) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	for _, fd := range r.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	r.fds = [2]int{-1, -1}
	return nil
}

// push adds records to the ring and wakes the poller, as the kernel at the wakeup mark.
func (r *fakeRing) push(recs ...[]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, recs...)
	if r.fds[1] >= 0 {
		unix.Write(r.fds[1], []byte{1})
	}
}

// hangUp is the sampled task's death: the poller sees EPOLLHUP.
func (r *fakeRing) hangUp() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fds[1] >= 0 {
		unix.Close(r.fds[1])
		r.fds[1] = -1
	}
}

// pending is the number of records not yet drained.
func (r *fakeRing) pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.recs)
}

// rings are the rings mapped, by CPU.
func (k *fakeKernel) rings() map[int]*fakeRing {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[int]*fakeRing{}
	for _, c := range k.opened {
		if c.ring != nil {
			out[c.cpu] = c.ring
		}
	}
	return out
}

// checkClosed fails the test when a counter or ring was left open.
func (k *fakeKernel) checkClosed(t *testing.T) {
	t.Helper()
	for _, c := range k.opened {
		if !c.closed {
			t.Errorf("counter %s on %d/%d left open", c.name, c.pid, c.cpu)
		}
		if c.ring != nil && !c.ring.closed {
			t.Errorf("ring of %s on cpu %d left mapped", c.name, c.cpu)
		}
	}
}

// kernelID is the build-id in the fake machine's /sys/kernel/notes.
const kernelID = "4a5a9b0affb66c437abcd455d2738af879985fa9"

// fakeMachine is a machine of 2 CPUs with process 100 (threads 100 and 101, mapping
// /bin/target) and a kernel whose text starts at 0xffffffff81000000.
func fakeMachine(maxRate string, state byte) *host.Machine {
	stat := func(pid int, comm string) *fstest.MapFile {
		return &fstest.MapFile{Data: fmt.Appendf(nil, "%d (%s) %c 1 1 1 0 -1", pid, comm, state)}
	}
	notes := binary.NativeEndian.AppendUint32(nil, 4)
	notes = binary.NativeEndian.AppendUint32(notes, 20)
	notes = binary.NativeEndian.AppendUint32(notes, 3)
	notes = append(notes, "GNU\x00"...)
	id, _ := hex.DecodeString(kernelID)
	notes = append(notes, id...)
	root := fstest.MapFS{
		"proc/sys/kernel/hostname":                   {Data: []byte("fakehost\n")},
		"proc/sys/kernel/perf_event_max_sample_rate": {Data: []byte(maxRate)},
		"proc/sys/kernel/perf_event_paranoid":        {Data: []byte("2\n")},
		"proc/kallsyms":                              {Data: []byte("ffffffff81000000 T _text\nffffffff81e00000 T _etext\n")},
		"proc/100/stat":                              stat(100, "target"),
		"proc/100/status":                            {Data: []byte("Name:\ttarget\nUid:\t0\t0\t0\t0\n")},
		"proc/100/maps":                              {Data: []byte("00400000-00401000 r-xp 00000000 08:01 1234 /bin/target\n00601000-00602000 rw-p 00000000 08:01 1234 /bin/target\n")},
		"proc/100/task/100/stat":                     stat(100, "target"),
		"proc/100/task/101/stat":                     stat(101, "worker"),
		"proc/101/stat":                              stat(101, "worker"),
	}
	sys := fstest.MapFS{
		"devices/system/cpu/online": {Data: []byte("0-1\n")},
		"kernel/notes":              {Data: notes},
	}
	return host.Probe(root, sys)
}

var ne = binary.NativeEndian

// rec lays out a record: header, then words, then the size.
func rec(typ uint32, misc uint16, words ...uint64) []byte {
	b := ne.AppendUint32(nil, typ)
	b = ne.AppendUint16(b, misc)
	b = ne.AppendUint16(b, 0)
	for _, w := range words {
		b = ne.AppendUint64(b, w)
	}
	ne.PutUint16(b[6:], uint16(len(b)))
	return b
}

func pidTID(pid, tid uint32) uint64 { return uint64(tid)<<32 | uint64(pid) }

// sample is a PERF_RECORD_SAMPLE of IP|TID|TIME|PERIOD (pmc record's -F layout, one event,
// not system-wide).
func sample(ip uint64, pid, tid uint32, time uint64) []byte {
	return rec(9, 2, ip, pidTID(pid, tid), time, 250000)
}

// kernelSample is a sample of that layout in the kernel (cpumode kernel).
func kernelSample(ip uint64, pid, tid uint32, time uint64) []byte {
	return rec(9, 1, ip, pidTID(pid, tid), time, 250000)
}

// trailer is the sample_id_all trailer of that layout: TID, TIME.
func trailer(pid, tid uint32, time uint64) []uint64 { return []uint64{pidTID(pid, tid), time} }

func lost(id, n uint64, pid, tid uint32, time uint64) []byte {
	return rec(2, 0, append([]uint64{id, n}, trailer(pid, tid, time)...)...)
}

func lostSamples(n uint64, pid, tid uint32, time uint64) []byte {
	return rec(13, 0, append([]uint64{n}, trailer(pid, tid, time)...)...)
}

func throttle(typ uint32, id uint64, pid, tid uint32, time uint64) []byte {
	return rec(typ, 0, append([]uint64{time, id, id}, trailer(pid, tid, time)...)...)
}

package perfevent

import (
	"encoding/binary"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// A cpu-clock sampling counter on this process at 10 kHz: burning 100 ms of CPU gives
// samples of this pid in the ring, and the poller wakes on the watermark.
func TestRingSamplesSelf(t *testing.T) {
	testenv.CheckFDs(t)
	runtime.LockOSThread() // the counter follows this thread
	defer runtime.UnlockOSThread()
	attr := Attr{Type: TypeSoftware, Config: SWCPUClock, SamplePeriod: 100000, // ns
		SampleType: SampleIP | SampleTID | SamplePeriod, Disabled: true, Watermark: true, WakeupEvents: 1}
	c, err := Open("cpu-clock", attr, CallingThread, AnyCPU, nil)
	if err != nil {
		t.Skipf("cannot sample cpu-clock here: %v", err)
	}
	defer c.Close()
	r, err := c.MapRing(8)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := NewPoller()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Watch(r.FD()); err != nil {
		t.Fatal(err)
	}
	if err := c.Enable(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	c.Disable()
	if _, err := p.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	samples := 0
	n, err := r.Drain(func(rec []byte) error {
		if binary.NativeEndian.Uint32(rec) == 9 { // PERF_RECORD_SAMPLE: ip, pid, tid, period
			samples++
			if pid := binary.NativeEndian.Uint32(rec[16:]); int(pid) != os.Getpid() {
				t.Errorf("sample of pid %d, want %d", pid, os.Getpid())
			}
			if period := binary.NativeEndian.Uint64(rec[24:]); period != 100000 {
				t.Errorf("period %d, want 100000", period)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if samples == 0 || n != samples*32 {
		t.Fatalf("%d samples in %d bytes (want >0 samples of 32 bytes)", samples, n)
	}
	if n2, _ := r.Drain(func([]byte) error { return nil }); n2 != 0 {
		t.Fatalf("a second drain read %d bytes", n2)
	}
}

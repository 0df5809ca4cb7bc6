package perfevent

import (
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
)

func words(ws ...uint64) []byte {
	b := make([]byte, 8*len(ws))
	for i, w := range ws {
		binary.NativeEndian.PutUint64(b[8*i:], w)
	}
	return b
}

func TestParseRead(t *testing.T) {
	v, err := ParseRead(words(42, 1000, 500), FormatTotalTimeEnabled|FormatTotalTimeRunning)
	if err != nil || v != (Value{Raw: 42, Enabled: 1000, Running: 500}) {
		t.Fatalf("got %+v, %v", v, err)
	}
	v, err = ParseRead(words(7, 9, 8, 3), FormatTotalTimeEnabled|FormatTotalTimeRunning|FormatID)
	if err != nil || v != (Value{Raw: 7, Enabled: 9, Running: 8, ID: 3}) {
		t.Fatalf("got %+v, %v", v, err)
	}
	if _, err := ParseRead(words(1), FormatTotalTimeEnabled); err == nil {
		t.Fatal("short read accepted")
	}
	if _, err := ParseRead([]byte{1, 2, 3}, 0); err == nil {
		t.Fatal("odd length accepted")
	}
}

func TestParseGroupRead(t *testing.T) {
	f := FormatGroup | FormatTotalTimeEnabled | FormatTotalTimeRunning | FormatID
	vs, err := ParseGroupRead(words(2, 100, 50, 11, 1, 22, 2), f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Value{{Raw: 11, Enabled: 100, Running: 50, ID: 1}, {Raw: 22, Enabled: 100, Running: 50, ID: 2}}
	if len(vs) != 2 || vs[0] != want[0] || vs[1] != want[1] {
		t.Fatalf("got %+v", vs)
	}
	if _, err := ParseGroupRead(words(1000, 1, 2), f); err == nil {
		t.Fatal("impossible member count accepted")
	}
}

func TestEncodeBits(t *testing.T) {
	k, err := Encode(Attr{Type: TypeSoftware, Config: SWTaskClock, Disabled: true, Inherit: true,
		EnableOnExec: true, ExcludeGuest: true, PreciseIP: 3, Config1: 5, Config2: 6})
	if err != nil {
		t.Fatal(err)
	}
	want := unix.PerfBitDisabled | unix.PerfBitInherit | unix.PerfBitEnableOnExec |
		unix.PerfBitExcludeGuest | unix.PerfBitPreciseIPBit1 | unix.PerfBitPreciseIPBit2
	if k.Bits != want || k.Ext1 != 5 || k.Ext2 != 6 || k.Size != 128 {
		t.Fatalf("bits %#x want %#x, ext %d %d size %d", k.Bits, want, k.Ext1, k.Ext2, k.Size)
	}
	if _, err := Encode(Attr{PreciseIP: 4}); err == nil {
		t.Fatal("precise_ip 4 accepted")
	}
}

// lockThread keeps the test's goroutine on one OS thread: a counter opened on the calling
// thread (CallingThread) counts that thread only, and an unlocked goroutine may do its work
// on another (4-9 failures in 200 runs of TestOpenSoftware on a loaded machine before).
func lockThread(t *testing.T) {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

// TestOpenSoftware counts this thread's task-clock for real: the value must grow with work.
func TestOpenSoftware(t *testing.T) {
	lockThread(t)
	c, err := Open("task-clock", Attr{Type: TypeSoftware, Config: SWTaskClock, Disabled: true,
		ReadFormat: FormatTotalTimeEnabled | FormatTotalTimeRunning}, CallingThread, AnyCPU, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Enable(); err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := 0; i < 20_000_000; i++ {
		x += i ^ x
	}
	_ = x
	if err := c.Disable(); err != nil {
		t.Fatal(err)
	}
	v, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	if v.Raw < 1_000_000 || v.Enabled == 0 || v.Running != v.Enabled {
		t.Fatalf("task-clock %+v: want >1ms and running == enabled", v)
	}
}

// TestOpenHardwareNoPMU: on a machine without a PMU, instructions must be ErrNotSupported.
func TestOpenHardwareNoPMU(t *testing.T) {
	c, err := Open("instructions", Attr{Type: TypeHardware, Config: HWInstructions, Disabled: true},
		CallingThread, AnyCPU, nil)
	if err == nil {
		c.Close()
		t.Skip("this machine has a hardware PMU")
	}
	if !errors.Is(err, ErrNotSupported) {
		t.Fatalf("want ErrNotSupported, got %v", err)
	}
}

// TestGroupReadPicksMember opens a real software group read with PERF_FORMAT_GROUP: each
// member's Read must return its own value, not the leader's.
func TestGroupReadPicksMember(t *testing.T) {
	lockThread(t)
	f := FormatGroup | FormatID | FormatTotalTimeEnabled | FormatTotalTimeRunning
	lead, err := Open("task-clock", Attr{Type: TypeSoftware, Config: SWTaskClock, Disabled: true, ReadFormat: f},
		CallingThread, AnyCPU, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lead.Close()
	// a member that stays at zero: no faults are taken for alignment here
	member, err := Open("alignment-faults", Attr{Type: TypeSoftware, Config: SWAlignmentFaults, ReadFormat: f},
		CallingThread, AnyCPU, lead)
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	lead.Enable()
	x := 0
	for i := 0; i < 5_000_000; i++ {
		x += i ^ x
	}
	_ = x
	lead.Disable()
	lv, err := lead.Read()
	if err != nil {
		t.Fatal(err)
	}
	mv, err := member.Read()
	if err != nil {
		t.Fatal(err)
	}
	if lv.Raw == 0 || mv.Raw != 0 || lv.ID == mv.ID {
		t.Fatalf("leader %+v member %+v: want the member's own zero count", lv, mv)
	}
	if mv.Enabled != lv.Enabled || mv.Running != lv.Running {
		t.Fatalf("members share the group's times: %+v vs %+v", mv, lv)
	}
}

func TestPickNeedsID(t *testing.T) {
	if _, err := pick([]Value{{Raw: 1}}, 0, FormatGroup); err == nil {
		t.Fatal("group read without ids accepted")
	}
	if v, err := pick([]Value{{Raw: 1, ID: 5}, {Raw: 2, ID: 6}}, 6, FormatGroup|FormatID); err != nil || v.Raw != 2 {
		t.Fatalf("%+v %v", v, err)
	}
}

// TestCounterFDs: Close releases the fd, twice is harmless, and a refused open leaves none.
func TestCounterFDs(t *testing.T) {
	testenv.CheckFDs(t)
	f := FormatGroup | FormatID | FormatTotalTimeEnabled | FormatTotalTimeRunning
	lead, err := Open("task-clock", Attr{Type: TypeSoftware, Config: SWTaskClock, Disabled: true, ReadFormat: f},
		CallingThread, AnyCPU, nil)
	if err != nil {
		t.Fatal(err)
	}
	member, err := Open("page-faults", Attr{Type: TypeSoftware, Config: SWPageFaults, ReadFormat: f}, CallingThread, AnyCPU, lead)
	if err != nil {
		t.Fatal(err)
	}
	member.Close()
	member.Close()
	lead.Close()
	if _, err := Open("bad", Attr{Type: TypeSoftware, Config: 1 << 40}, CallingThread, AnyCPU, nil); err == nil {
		t.Fatal("software event 1<<40 opened")
	}
}

// TestGroupReadSize: the group read is sized from the members, so a group larger than any
// fixed buffer reads (a fixed 96-member buffer failed with ENOSPC before).
func TestGroupReadSize(t *testing.T) {
	lockThread(t)
	testenv.CheckFDs(t)
	f := FormatGroup | FormatID | FormatTotalTimeEnabled | FormatTotalTimeRunning
	lead, err := Open("task-clock", Attr{Type: TypeSoftware, Config: SWTaskClock, Disabled: true, ReadFormat: f},
		CallingThread, AnyCPU, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lead.Close()
	var members []*Counter
	for i := 0; i < 150; i++ {
		m, err := Open("page-faults", Attr{Type: TypeSoftware, Config: SWPageFaults, ReadFormat: f}, CallingThread, AnyCPU, lead)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		members = append(members, m)
	}
	vs, err := lead.ReadGroup()
	if err != nil || len(vs) != 151 {
		t.Fatalf("group of 151: %d values, %v", len(vs), err)
	}
	if _, err := members[149].Read(); err != nil {
		t.Fatalf("member read: %v", err)
	}
}

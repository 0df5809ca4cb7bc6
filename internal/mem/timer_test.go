package mem

import (
	"strings"
	"testing"
)

// TestChooseTimer: the cycle counter times single hops exactly where user space may read it,
// and every other case names its cause and, where there is one, the fix.
func TestChooseTimer(t *testing.T) {
	arm64 := TimerFacts{Arch: "arm64", Instr: "pmccntr", CapUserRdpmc: true, Index: 32,
		PerfUserAccess: "1", PerfUserAccessKnown: true}
	x86 := TimerFacts{Arch: "amd64", Instr: "rdpmc", CapUserRdpmc: true, Index: 1<<30 + 2}
	cases := []struct {
		name   string
		f      TimerFacts
		ok     bool
		reason string
	}{
		{"arm64 perf_user_access=1", arm64, true, ""},
		{"x86 rdpmc allowed", x86, true, ""},
		{"arm64 perf_user_access=0", with(arm64, func(f *TimerFacts) { f.PerfUserAccess, f.Index = "0", 0 }), false,
			"sysctl -w kernel.perf_user_access=1"},
		{"arm64 old kernel", with(arm64, func(f *TimerFacts) { f.PerfUserAccessKnown = false }), false, "Linux 5.17"},
		{"arm64 not on the cycle counter", with(arm64, func(f *TimerFacts) { f.Index = 3 }), false, "index 3, want 32"},
		{"arm64 no grant", with(arm64, func(f *TimerFacts) { f.CapUserRdpmc = false }), false, "cap_user_rdpmc 0"},
		{"32-bit ARM", TimerFacts{Arch: "arm"}, false, "32-bit ARM Linux does not let user space read"},
		{"riscv64", TimerFacts{Arch: "riscv64"}, false, "no user-space cycle counter read on riscv64"},
		{"x86 VM without PMU", with(x86, func(f *TimerFacts) { f.CyclesErr = "event not supported (ENOENT)" }), false,
			"no hardware cycles event to read from user space (event not supported (ENOENT))"},
		{"x86 rdpmc off", with(x86, func(f *TimerFacts) { f.CapUserRdpmc = false }), false, "devices/cpu/rdpmc"},
	}
	for _, c := range cases {
		ok, note := ChooseTimer(c.f)
		if ok != c.ok || !strings.Contains(note, c.reason) || ok && note != "" {
			t.Errorf("%s: %v %q; want %v and a note containing %q", c.name, ok, note, c.ok, c.reason)
		}
	}
}

func with(f TimerFacts, change func(*TimerFacts)) TimerFacts {
	change(&f)
	return f
}

// TestPageFacts reads cap_user_rdpmc and the index from a perf mmap page image.
func TestPageFactsFromPage(t *testing.T) {
	page := make([]byte, 4096)
	page[12] = 32          // index
	page[40] = 1<<2 | 1<<3 // cap_user_rdpmc | cap_user_time
	var f TimerFacts
	pageFacts(&f, page)
	if !f.CapUserRdpmc || f.Index != 32 {
		t.Errorf("%+v", f)
	}
	f = TimerFacts{}
	pageFacts(&f, page[:10])
	if f.CapUserRdpmc || f.Index != 0 {
		t.Errorf("short page: %+v", f)
	}
}

// TestPinClock: the clock is pinned down only when two rounds in a row agree within the
// tolerance (the 3.23 then 1.24 GHz under load is never printed as cycles).
func TestPinClock(t *testing.T) {
	cases := []struct {
		rounds []float64
		want   float64
		seen   int
	}{
		{[]float64{3.23, 3.22}, 3.23, 2},
		{[]float64{3.23, 1.24, 3.20, 3.21}, 3.21, 4},
		{[]float64{3.23, 1.24, 2.50, 1.80, 2.90, 3.2}, 0, 5}, // never two in a row: not pinned
		{[]float64{0}, 0, 0},                                 // no calibration here
	}
	for _, c := range cases {
		i := 0
		ghz, seen := pinClock(func() float64 { i++; return c.rounds[i-1] }, 5)
		if ghz != c.want || len(seen) != c.seen {
			t.Errorf("rounds %v: %v after %v, want %v after %d rounds", c.rounds, ghz, seen, c.want, c.seen)
		}
	}
}

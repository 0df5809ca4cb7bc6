package sim

import (
	"strings"
	"testing"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
)

func TestCounters(t *testing.T) {
	cache := func(c, op, res uint64) pe.Attr { return pe.Attr{Type: pe.TypeHWCache, Config: c | op<<8 | res<<16} }
	for _, c := range []struct {
		attr   pe.Attr
		want   string // counters joined by +, or "" when not simulated
		reason string
	}{
		{pe.Attr{Type: pe.TypeHardware, Config: pe.HWInstructions}, "Ir", ""},
		{pe.Attr{Type: pe.TypeHardware, Config: pe.HWBranchMisses}, "Bcm+Bim", ""},
		{pe.Attr{Type: pe.TypeHardware, Config: pe.HWCacheMisses}, "ILmr+DLmr+DLmw", ""},
		{pe.Attr{Type: pe.TypeHardware, Config: pe.HWCPUCycles}, "", "no timing"},
		{cache(pe.CacheL1D, pe.CacheOpRead, pe.CacheResultAccess), "Dr", ""},
		{cache(pe.CacheL1D, pe.CacheOpRead, pe.CacheResultMiss), "D1mr", ""},
		{cache(pe.CacheL1D, pe.CacheOpWrite, pe.CacheResultMiss), "D1mw", ""},
		{cache(pe.CacheL1I, pe.CacheOpRead, pe.CacheResultMiss), "I1mr", ""},
		{cache(pe.CacheLL, pe.CacheOpRead, pe.CacheResultMiss), "ILmr+DLmr", ""},
		{cache(pe.CacheDTLB, pe.CacheOpRead, pe.CacheResultMiss), "", "no TLB"},
		{cache(pe.CacheL1D, pe.CacheOpPrefetch, pe.CacheResultAccess), "", "no such cache operation"},
		{pe.Attr{Type: pe.TypeSoftware, Config: pe.SWTaskClock}, "", "software event"},
		{pe.Attr{Type: pe.TypeRaw, Config: 0x11}, "", "not raw"},
	} {
		got, reason := Counters(c.attr)
		if strings.Join(got, "+") != c.want || (c.reason == "") != (reason == "") || !strings.Contains(reason, c.reason) {
			t.Errorf("%+v: %v %q; want %s %q", c.attr, got, reason, c.want, c.reason)
		}
	}
}

func TestParseOutput(t *testing.T) {
	out := "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./a\nevents: Ir I1mr D1mr\nfl=x\n1 2 3 4\nsummary: 100 2 30\n"
	m, err := ParseOutput([]byte(out))
	if err != nil || m["Ir"] != 100 || m["I1mr"] != 2 || m["D1mr"] != 30 {
		t.Errorf("%v %v", m, err)
	}
	for _, bad := range []string{"", "events: Ir Dr\nsummary: 1\n", "events: Ir\nsummary: -1\n"} {
		if _, err := ParseOutput([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseOutput(f *testing.F) {
	f.Add([]byte("events: Ir Dr\nsummary: 1 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseOutput(b)
		if err == nil && len(m) == 0 {
			t.Errorf("no counts without an error")
		}
	})
}

func TestParseGeometry(t *testing.T) {
	g, err := ParseGeometry("D1=8192,4,64; LL=1048576,16,64", Geometry{I1: Cache{32768, 8, 64}})
	if err != nil || g.D1 != (Cache{8192, 4, 64}) || g.LL != (Cache{1048576, 16, 64}) || g.I1 != (Cache{32768, 8, 64}) {
		t.Errorf("%+v %v", g, err)
	}
	for _, bad := range []string{"D1=8192,4", "L2=1,1,1", "D1=a,b,c", "D1=0,4,64"} {
		if _, err := ParseGeometry(bad, Geometry{}); err == nil || !strings.Contains(err.Error(), "--sim-cache") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	args := Cachegrind{Geometry: g}.Args("/tmp/o", []string{"./a", "x"})
	if j := strings.Join(args, " "); !strings.Contains(j, "--D1=8192,4,64 --LL=1048576,16,64 -- ./a x") || !strings.Contains(j, "--branch-sim=yes") {
		t.Errorf("args %s", j)
	}
}

// A last-level cache whose set count is not a power of two (this Xeon's 480 MiB, 16-way L3
// has 491,520 sets) keeps its size and line and gets the nearest associativity cachegrind
// accepts; valgrind itself refuses --LL=503316480,16,64.
func TestSimulable(t *testing.T) {
	for _, tc := range []struct {
		in, want Cache
		ok       bool
	}{
		{Cache{503316480, 16, 64}, Cache{503316480, 15, 64}, true},
		{Cache{32768, 8, 64}, Cache{32768, 8, 64}, true},
		{Cache{49152, 12, 64}, Cache{49152, 12, 64}, true}, // 64 sets: fine as it is
		{Cache{12582912, 12, 64}, Cache{12582912, 12, 64}, true},
		{Cache{31457280, 20, 64}, Cache{31457280, 15, 64}, true},
		{Cache{8192, 4, 16}, Cache{8192, 4, 16}, false}, // lines under 32 bytes
		{Cache{1000, 2, 64}, Cache{1000, 2, 64}, false},
	} {
		got, ok := tc.in.Simulable()
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v.Simulable() = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.check() != nil {
			t.Errorf("%v: %v", got, got.check())
		}
	}
	if _, err := ParseGeometry("LL=503316480,16,64", Geometry{}); err == nil || !strings.Contains(err.Error(), "power-of-two") {
		t.Errorf("ParseGeometry of a 491520-set cache: %v", err)
	}
}

// TestNoteRoundTrip: the geometry a saved --sim result names in its note is read back (pmc
// compare shows it), whatever levels were given.
func TestNoteRoundTrip(t *testing.T) {
	for _, g := range []Geometry{
		{D1: Cache{16384, 4, 32}, LL: Cache{65536, 8, 32}},
		{I1: Cache{32768, 8, 64}, D1: Cache{49152, 12, 64}, LL: Cache{503316480, 30, 64}},
	} {
		got, ok := GeometryOf([]string{"something else", Note(g)})
		if !ok || got != g {
			t.Errorf("GeometryOf(Note(%v)) = %v, %v", g, got, ok)
		}
	}
	if _, ok := GeometryOf([]string{Note(Geometry{})}); ok {
		t.Error("cachegrind's own caches: no geometry to read back")
	}
	const saved = "SIMULATED: the counts come from valgrind's cachegrind simulating caches D1 16384,4,32, LL 65536,8,32 (size,ways,line), not from hardware counters"
	if g, ok := GeometryOf([]string{saved}); !ok || g.String() != "D1 16384,4,32, LL 65536,8,32" {
		t.Errorf("a note as pmc stat --sim saved it: %v %v", g, ok)
	}
}

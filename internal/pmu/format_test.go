package pmu

import (
	"errors"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfevent"
)

func TestParseFormat(t *testing.T) {
	cases := []struct {
		in   string
		word int
		mask uint64
		bits int
	}{
		{"config:0-7", 0, 0xff, 8},
		{"config:0-7,32-35", 0, 0xf000000ff, 12},
		{"config1:0", 1, 1, 1},
		{"config2:0-63", 2, ^uint64(0), 64},
		{"config3:5", 3, 0x20, 1},
		{" config:21\n", 0, 1 << 21, 1},
		{"config:0-15", 0, 0xffff, 16},
	}
	for _, c := range cases {
		f, err := ParseFormat(c.in)
		if err != nil {
			t.Fatalf("ParseFormat(%q): %v", c.in, err)
		}
		if f.Word != c.word || f.Mask() != c.mask || f.Bits() != c.bits {
			t.Errorf("ParseFormat(%q) = word %d mask %#x bits %d, want %d %#x %d",
				c.in, f.Word, f.Mask(), f.Bits(), c.word, c.mask, c.bits)
		}
	}
	for _, bad := range []string{"", "config", "config:", "config4:0", "conf:1", "config:7-0",
		"config:64", "config:0-64", "config:a", "config:-1", "config:1-", "config:+1", "config:0,,1"} {
		if _, err := ParseFormat(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("ParseFormat(%q) err = %v, want ErrFormat", bad, err)
		}
	}
}

func TestFormatApply(t *testing.T) {
	mustFormat := func(s string) Format {
		f, err := ParseFormat(s)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	var a perfevent.Attr
	if err := mustFormat("config:0-7").Apply(&a, 0x3c); err != nil {
		t.Fatal(err)
	}
	if err := mustFormat("config:8-15").Apply(&a, 0x01); err != nil {
		t.Fatal(err)
	}
	if err := mustFormat("config:23").Apply(&a, 1); err != nil {
		t.Fatal(err)
	}
	if a.Config != 0x80013c {
		t.Errorf("config = %#x, want 0x80013c", a.Config)
	}
	// A split field: the low 8 value bits go to 0-7, the next 4 to 32-35.
	a = perfevent.Attr{}
	if err := mustFormat("config:0-7,32-35").Apply(&a, 0xabc); err != nil {
		t.Fatal(err)
	}
	if a.Config != 0xa000000bc {
		t.Errorf("split config = %#x, want 0xa000000bc", a.Config)
	}
	// Ranges written out of order still fill from the lowest bit.
	a = perfevent.Attr{}
	if err := mustFormat("config:32-35,0-7").Apply(&a, 0xabc); err != nil || a.Config != 0xa000000bc {
		t.Errorf("reversed ranges: config = %#x err %v", a.Config, err)
	}
	// Apply replaces the field's old bits and leaves others.
	a = perfevent.Attr{Config: 0xffff}
	if err := mustFormat("config:8-15").Apply(&a, 0x02); err != nil || a.Config != 0x2ff {
		t.Errorf("replace: config = %#x err %v", a.Config, err)
	}
	a = perfevent.Attr{}
	for w, f := range []string{"config1:0-63", "config2:4-7", "config3:0"} {
		if err := mustFormat(f).Apply(&a, 1); err != nil {
			t.Fatalf("word %d: %v", w+1, err)
		}
	}
	if a.Config1 != 1 || a.Config2 != 0x10 || a.Config3 != 1 || a.Config != 0 {
		t.Errorf("config words = %#x %#x %#x %#x", a.Config, a.Config1, a.Config2, a.Config3)
	}
	// Out of range values are rejected and leave attr alone.
	a = perfevent.Attr{Config: 7}
	if err := mustFormat("config:0-7").Apply(&a, 0x100); !errors.Is(err, ErrValueRange) || a.Config != 7 {
		t.Errorf("Apply(0x100) to 8 bits: err %v config %#x", err, a.Config)
	}
	if err := mustFormat("config:18").Apply(&a, 2); !errors.Is(err, ErrValueRange) {
		t.Errorf("Apply(2) to 1 bit: err %v", err)
	}
	if err := mustFormat("config:0-63").Apply(&a, ^uint64(0)); err != nil || a.Config != ^uint64(0) {
		t.Errorf("full word: err %v config %#x", err, a.Config)
	}
}

func TestParseCPUList(t *testing.T) {
	cases := map[string][]int{
		"0-3,5": {0, 1, 2, 3, 5}, "0": {0}, "": nil, "0-1\n": {0, 1}, "4,0-1,1": {0, 1, 4},
	}
	for in, want := range cases {
		got, err := ParseCPUList(in)
		if err != nil || !equalInts(got, want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"a", "3-1", "1,", "-1", "0-99999999", "+1", "1-2-3"} {
		if _, err := ParseCPUList(bad); !errors.Is(err, ErrCPUList) {
			t.Errorf("ParseCPUList(%q) err = %v, want ErrCPUList", bad, err)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"config:0-7", "config:0-7,32-35", "config1:0", "config2:0-63",
		"config:63", "config:1-1", "config3:0,2,4-6"} {
		f.Add(s, uint64(0x3c))
	}
	f.Fuzz(func(t *testing.T, s string, v uint64) {
		fm, err := ParseFormat(s)
		if err != nil {
			return
		}
		// The canonical text parses back to the same field.
		back, err := ParseFormat(fm.String())
		if err != nil || back.Mask() != fm.Mask() || back.Word != fm.Word {
			t.Fatalf("%q -> %q -> %v, %v", s, fm.String(), back, err)
		}
		var a perfevent.Attr
		err = fm.Apply(&a, v)
		if (err == nil) != (v <= fm.Max()) {
			t.Fatalf("Apply(%#x) to %s (max %#x): err %v", v, fm, fm.Max(), err)
		}
		if err != nil {
			return
		}
		words := []uint64{a.Config, a.Config1, a.Config2, a.Config3}
		for i, w := range words {
			if i != fm.Word && w != 0 {
				t.Fatalf("Apply touched word %d", i)
			}
		}
		w := words[fm.Word]
		if w&^fm.Mask() != 0 {
			t.Fatalf("Apply set bits %#x outside mask %#x", w, fm.Mask())
		}
		if got := gather(fm.Mask(), w); got != v {
			t.Fatalf("gather(scatter(%#x)) = %#x", v, got)
		}
	})
}

// gather is Scatter's inverse, written bit by bit for the fuzz check.
func gather(mask, w uint64) uint64 {
	var v uint64
	n := 0
	for b := 0; b < 64; b++ {
		if mask&(1<<b) != 0 {
			if w&(1<<b) != 0 {
				v |= 1 << n
			}
			n++
		}
	}
	return v
}

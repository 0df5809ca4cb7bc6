package profile

import "testing"

// A mapping that overlaps an older one takes only the range it covers: the older
// mapping's parts before and after it stay, the part after at its own file offset (as
// perf's maps__fixup_overlappings; ld.so reserves its whole range, then maps segments
// into it).
func TestMmapSplitsOverlapped(t *testing.T) {
	b := NewBuilder(nil)
	b.Mmap(MmapEvent{Pid: 1, Start: 0x10000, Len: 0x8000, Pgoff: 0x1000, Filename: "/lib/ld.so"})
	b.Mmap(MmapEvent{Pid: 1, Start: 0x12000, Len: 0x1000, Filename: "/lib/libc.so"})
	b.Mmap(MmapEvent{Pid: 1, Start: 0x17000, Len: 0x4000, Filename: "/bin/prog"}) // covers ld.so's end
	for _, c := range []struct {
		ip       uint64
		dso, sym string
	}{
		{0x10010, "/lib/ld.so", "0x0000000000001010"}, // before the hole: offset 0x1000 + 0x10
		{0x12010, "/lib/libc.so", "0x0000000000000010"},
		{0x13010, "/lib/ld.so", "0x0000000000004010"}, // after it: the file offset goes on
		{0x16ff0, "/lib/ld.so", "0x0000000000007ff0"},
		{0x17010, "/bin/prog", "0x0000000000000010"},
		{0x1a010, "/bin/prog", "0x0000000000003010"},
		{0x1b010, Unknown, "0x000000000001b010"},
	} {
		b.Sample(SampleEvent{Pid: 1, Tid: 1, IP: c.ip, Period: 1})
		s := b.Profile().Samples
		l := s[len(s)-1].Stack[0]
		if l.DSO.Name != c.dso || l.Sym.Name != c.sym {
			t.Errorf("%#x: %s %s, want %s %s", c.ip, l.DSO.Name, l.Sym.Name, c.dso, c.sym)
		}
	}
}

package host

import (
	"testing"
	"testing/fstest"
)

// smapsSample is two mappings of a /proc/self/smaps (x86-64, kernel 6.1), the second a
// 64 MiB list mapped with MADV_HUGEPAGE of which 30 MiB came as huge pages.
const smapsSample = `55d4c8e00000-55d4c8e21000 r--p 00000000 fe:01 1234  /usr/bin/pmc
Size:                132 kB
AnonHugePages:         0 kB
VmFlags: rd mr mw me dw sd
7f0a00000000-7f0a04000000 rw-p 00000000 00:00 0
Size:              65536 kB
Rss:               65536 kB
AnonHugePages:     30720 kB
THPeligible:    1
VmFlags: rd wr mr mw me ac sd hg
`

func TestParseSmapsAnonHuge(t *testing.T) {
	got, err := ParseSmapsAnonHuge([]byte(smapsSample), 0x7f0a00001000)
	if err != nil || got != 30<<20 {
		t.Errorf("list mapping: %d, %v; want 30 MiB", got, err)
	}
	if got, err := ParseSmapsAnonHuge([]byte(smapsSample), 0x55d4c8e00000); err != nil || got != 0 {
		t.Errorf("binary mapping: %d, %v; want 0", got, err)
	}
	if _, err := ParseSmapsAnonHuge([]byte(smapsSample), 0x1000); err == nil {
		t.Error("an address outside every mapping was accepted")
	}
	if _, err := ParseSmapsAnonHuge([]byte("1000-2000 rw-p 0 0:0 0\nAnonHugePages: x kB\n"), 0x1000); err == nil {
		t.Error("a bad number was accepted")
	}
}

func TestPageFacts(t *testing.T) {
	m := Probe(fstest.MapFS{
		"proc/sys/kernel/perf_user_access": {Data: []byte("0\n")},
		"proc/self/smaps":                  {Data: []byte(smapsSample)},
	}, fstest.MapFS{
		"kernel/mm/transparent_hugepage/enabled": {Data: []byte("always [madvise] never\n")},
	})
	if v, ok := m.PerfUserAccess(); !ok || v != "0" {
		t.Errorf("perf_user_access %q %v", v, ok)
	}
	if got := m.THPMode(); got != "madvise" {
		t.Errorf("THP mode %q", got)
	}
	if n, err := m.AnonHugeBytes(0x7f0a03ffffff); err != nil || n != 30<<20 {
		t.Errorf("AnonHugeBytes %d %v", n, err)
	}
	e := Empty()
	if _, ok := e.PerfUserAccess(); ok || e.THPMode() != "" {
		t.Error("an empty machine has perf_user_access or THP")
	}
	if ParseTHPMode([]byte("[never]")) != "never" || ParseTHPMode([]byte("junk]")) != "" {
		t.Error("ParseTHPMode")
	}
}

func FuzzParseSmapsAnonHuge(f *testing.F) {
	f.Add([]byte(smapsSample), uint64(0x7f0a00001000))
	f.Add([]byte("0-ffffffffffffffff\nAnonHugePages:\n"), uint64(5))
	f.Fuzz(func(t *testing.T, b []byte, addr uint64) {
		n, err := ParseSmapsAnonHuge(b, addr)
		if err == nil && (n < 0 || n%1024 != 0) {
			t.Fatalf("%d bytes", n)
		}
	})
}

package fromperf

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// corpus is test/dwarfcorpus's data: perf's --call-graph dwarf recordings and archives.
const corpus = "../../../test/dwarfcorpus/testdata/data"

// loadDwarf reads a recording of the corpus, symbols from its archive alone.
func loadDwarf(t *testing.T, name string) *profile.Profile {
	t.Helper()
	data, err := testenv.ReadGzip(filepath.Join(corpus, name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	af, err := os.Open(filepath.Join(corpus, name+".pmcsym"))
	if err != nil {
		t.Fatal(err)
	}
	defer af.Close()
	fi, _ := af.Stat()
	a, err := symbol.OpenArchive(af, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	res := symbol.NewResolver(nil)
	res.Archive = a
	p, err := Build(f, res)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func chains(p *profile.Profile) []string {
	var out []string
	for _, s := range p.Samples {
		var names []string
		for _, l := range s.Stack {
			names = append(names, l.Sym.ShownName())
		}
		out = append(out, strings.Join(names, " "))
	}
	return out
}

// TestUnwindChains: every sample of perf's recording of callchain unwinds to _start
// through the C library's start-up, with no note.
func TestUnwindChains(t *testing.T) {
	p := loadDwarf(t, "here.callchain.data")
	want := "leaf mid top main __libc_start_call_main __libc_start_main_impl (inlined) _start"
	for i, c := range chains(p) {
		if c != want {
			t.Errorf("sample %d: %q, want %q", i, c, want)
		}
	}
	if len(p.Notes) != 0 {
		t.Errorf("notes %q, want none", p.Notes)
	}
}

// TestUnwindBounded: with the queue's stacks bounded to 256 KiB (the older half of about 30
// samples delivered whenever the queue holds more), the recording gives the same chains:
// its records' order in the file is close enough to their order in time.
func TestUnwindBounded(t *testing.T) {
	want := chains(loadDwarf(t, "here.callchain.data"))
	defer func(m int) { maxHeld = m }(maxHeld)
	maxHeld = 256 << 10
	if got := chains(loadDwarf(t, "here.callchain.data")); !slices.Equal(got, want) {
		t.Fatalf("chains differ when the queue is bounded:\n%q\n%q", got, want)
	}
}

// TestUnwindShortCopies: chains cut by a 128-byte stack copy end where it does, with a
// note that says so, never past it.
func TestUnwindShortCopies(t *testing.T) {
	p := loadDwarf(t, "here.short.data")
	for i, c := range chains(p) {
		if !strings.HasPrefix(c, "leaf mid top main") || strings.Contains(c, "_start ") || strings.HasSuffix(c, "_start") {
			t.Errorf("sample %d: %q", i, c)
		}
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "the end of the stack copy") {
		t.Errorf("notes %q, want one about the stack copy's end", p.Notes)
	}
}

// TestUnwindBadInput: registers of a 32-bit x86 task and a stack copy shorter than its
// record claims end their chains with notes that say so; the samples stay, at their IP.
func TestUnwindBadInput(t *testing.T) {
	ev := perfdata.Event{Attr: perfdata.Attr{SampleType: perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleCallchain |
		perfdata.SampleRegsUser | perfdata.SampleStackUser, SampleRegsUser: 0xff0fff, SampleStackUser: 16, SamplePeriod: 1}}
	regs := make([]uint64, 20)
	regs[7], regs[8] = 0x7000, 0x1000 // SP, IP
	var buf bytes.Buffer
	w, err := perfdata.NewWriter(&seekBuffer{b: &buf}, []perfdata.Event{ev})
	if err != nil {
		t.Fatal(err)
	}
	w.Features.Arch = "x86_64"
	for _, u := range []*perfdata.UserStack{
		{ABI: perfdata.RegsABI32, Regs: regs, Stack: make([]byte, 16), Size: 16},
		{ABI: perfdata.RegsABI64, Regs: regs, Stack: make([]byte, 16), Size: 16, Dyn: 64},
	} {
		s := &perfdata.Sample{RecordHeader: perfdata.RecordHeader{Type: perfdata.RecordSample, Misc: perfdata.MiscUser},
			Origin: perfdata.Origin{PID: 7, TID: 7}, IP: 0x1000, User: u}
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := perfdata.NewFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 2 || len(p.Samples[0].Stack) != 1 || len(p.Samples[1].Stack) != 1 {
		t.Fatalf("%d samples, want 2 of one frame each", len(p.Samples))
	}
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{"1 of 2 samples hold less user stack than their records claim",
		"2 of 2 call chains", "a 32-bit x86 task", "an address in no mapping"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}

// seekBuffer is an io.WriteSeeker in memory.
type seekBuffer struct {
	b   *bytes.Buffer
	off int64
}

func (s *seekBuffer) Write(p []byte) (int, error) {
	data := s.b.Bytes()
	if end := s.off + int64(len(p)); end > int64(len(data)) {
		s.b.Write(make([]byte, end-int64(len(data))))
		data = s.b.Bytes()
	}
	copy(data[s.off:], p)
	s.off += int64(len(p))
	return len(p), nil
}

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case 0:
		s.off = off
	case 1:
		s.off += off
	case 2:
		s.off = int64(s.b.Len()) + off
	}
	return s.off, nil
}

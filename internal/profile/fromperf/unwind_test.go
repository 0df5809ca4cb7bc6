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

package listing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/host"
)

func TestRawCode(t *testing.T) {
	for in, want := range map[string]uint64{"r3": 3, "R0x11": 0x11, " 0x4000 ": 0x4000, "r1a2": 0x1a2} {
		if got, ok := RawCode(in); !ok || got != want {
			t.Errorf("RawCode(%q) = %#x %v, want %#x", in, got, ok, want)
		}
	}
	for _, in := range []string{"r", "0x", "rzz", "cycles", "3", "0xfffffffffffffffff"} {
		if got, ok := RawCode(in); ok {
			t.Errorf("RawCode(%q) = %#x, want no code", in, got)
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("one two three four five", 9)
	want := []string{"one two", "three", "four five"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap = %q, want %q", got, want)
	}
	if got := wrap("a-word-longer-than-the-width", 5); len(got) != 1 {
		t.Errorf("a long word is split: %q", got)
	}
	if got := wrap("   ", 10); got != nil {
		t.Errorf("blank text wraps to %q", got)
	}
}

func TestMatchPattern(t *testing.T) {
	cycles := Entry{Name: "cpu-cycles", Aliases: []string{"cycles"}, Kind: "hardware"}
	refill := Entry{Name: "L1D_CACHE_REFILL", Kind: "table"}
	extra := Entry{Name: "MEM_LOAD_RETIRED.L1_MISS", Kind: "extra"}
	for _, c := range []struct {
		pattern string
		e       Entry
		want    bool
	}{
		{"", cycles, true},
		{"HW", cycles, true},
		{"sw", cycles, false},
		{"cycles", cycles, true}, // the alias
		{"cpu-*", cycles, true},
		{"*cycles", refill, false},
		{"refill", refill, true}, // substring, any case
		{"l1d_cache_[r]*", refill, true},
		{"table", refill, true},
		{"table", extra, true}, // --event-file's events belong to the table kind
		{"pmu", extra, false},
	} {
		if got := matchPattern(c.pattern, c.e); got != c.want {
			t.Errorf("matchPattern(%q, %s) = %v, want %v", c.pattern, c.e.Name, got, c.want)
		}
	}
}

func TestCommonStatus(t *testing.T) {
	if got := commonStatus([]Entry{{Status: "a"}, {Status: "b"}}); got != "a" { // a tie: the first
		t.Errorf("commonStatus = %q, want a", got)
	}
	// b reaches two first; a's second does not overtake it
	es := []Entry{{Status: "a"}, {Status: "b"}, {Status: "b"}, {Status: "a"}, {Status: "c"}}
	if got := commonStatus(es); got != "b" {
		t.Errorf("commonStatus = %q, want b", got)
	}
	if got := commonStatus(append(es, Entry{Status: "a"})); got != "a" {
		t.Errorf("commonStatus = %q, want a", got)
	}
}

// An --event-file naming one file of a directory reads that file alone.
func TestEventFileAlone(t *testing.T) {
	hosts := filepath.Join("..", "host", "testdata", "hosts")
	m := host.Probe(os.DirFS(filepath.Join(hosts, "x86-vm")), os.DirFS(filepath.Join(hosts, "x86-vm-sys")))
	m, err := machineFor(m, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "catalog", "testdata", "extra", "perfmon")
	file, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(file) == 0 {
		t.Fatalf("no perfmon files in %s: %v", dir, err)
	}
	one, err := loadEventFile(m, file[0])
	if err != nil {
		t.Fatal(err)
	}
	all, err := loadEventFile(m, dir)
	if err != nil {
		t.Fatal(err)
	}
	if one.Len() == 0 || (len(file) > 1 && one.Len() >= all.Len()) {
		t.Errorf("%s: %d events, the directory's %d files: %d", file[0], one.Len(), len(file), all.Len())
	}
	if _, err := loadEventFile(m, filepath.Join(dir, "none.json")); err == nil || !strings.HasPrefix(err.Error(), "--event-file: ") {
		t.Errorf("missing file: %v", err)
	}
	var o Options
	o.EventFile = file[0]
	if err := List(new(strings.Builder), m, o, "zzz-no-such-event"); !errors.Is(err, ErrNoMatch) {
		t.Errorf("no match: %v", err)
	}
}

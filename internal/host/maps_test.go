package host

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseMaps(t *testing.T) {
	in := `00400000-00401000 r--p 00000000 fe:00 9987205                            /tmp/x/loop
00401000-00479000 r-xp 00001000 fe:00 9987205                            /tmp/x/my loop
7ffd1000-7ffd3000 r-xp 00000000 00:00 0                                  [vdso]
7ffe0000-7ffe1000 rw-p 00000000 00:00 0 
garbage
`
	want := []Mapping{
		{0x400000, 0x401000, 0, "r--p", 0xfe, 0, 9987205, "/tmp/x/loop"},
		{0x401000, 0x479000, 0x1000, "r-xp", 0xfe, 0, 9987205, "/tmp/x/my loop"},
		{0x7ffd1000, 0x7ffd3000, 0, "r-xp", 0, 0, 0, "[vdso]"},
		{0x7ffe0000, 0x7ffe1000, 0, "rw-p", 0, 0, 0, ""},
	}
	if got := ParseMaps([]byte(in)); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

// TestKernelText: _text and _etext from kallsyms; hidden addresses (kptr_restrict) and a
// missing file give zeros. The two symbols are found however far apart they are.
func TestKernelText(t *testing.T) {
	var filler strings.Builder
	for i := 0; i < 100000; i++ { // a few MB, as a real kernel's table
		fmt.Fprintf(&filler, "ffffffff81%06x t some_function_%d\n", i, i)
	}
	table := "ffffffff81000000 T _text\n" + filler.String() + "ffffffff82000000 T _etext\nffffffffc0000000 t mod_fn\t[mod]\n"
	for name, c := range map[string]struct {
		text       string
		start, end uint64
	}{
		"real":   {table, 0xffffffff81000000, 0xffffffff82000000},
		"hidden": {"0000000000000000 T _text\n0000000000000000 T _etext\n", 0, 0},
		"none":   {"", 0, 0},
	} {
		root := fstest.MapFS{}
		if c.text != "" {
			root["proc/kallsyms"] = &fstest.MapFile{Data: []byte(c.text)}
		}
		m := Probe(root, fstest.MapFS{})
		if s, e := m.KernelText(); s != c.start || e != c.end {
			t.Errorf("%s: %#x-%#x, want %#x-%#x", name, s, e, c.start, c.end)
		}
	}
}

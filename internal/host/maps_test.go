package host

import (
	"reflect"
	"testing"
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

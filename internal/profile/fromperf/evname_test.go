package fromperf

import (
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// The names perf 6.1 prints for attributes without an event description (seen in the
// corpus's pipe files and perf report --stdio on them; `perf stat -e` spellings otherwise).
func TestAttrName(t *testing.T) {
	const (
		eu, ek, eh = perfdata.FlagExcludeUser, perfdata.FlagExcludeKernel, perfdata.FlagExcludeHV
		eg         = perfdata.FlagExcludeGuest
		pp         = 2 << 15
	)
	for _, c := range []struct {
		a    perfdata.Attr
		want string
	}{
		{perfdata.Attr{Type: 0, Config: 0, Flags: eg}, "cycles"},
		{perfdata.Attr{Type: 0, Config: 0}, "cycles:HG"}, // perf's default excludes the guest
		{perfdata.Attr{Type: 0, Config: 0, Flags: pp}, "cycles:pp"},
		{perfdata.Attr{Type: 0, Config: 0, Flags: pp | eg}, "cycles:ppH"},
		{perfdata.Attr{Type: 0, Config: 4, Flags: eg}, "branches"},
		{perfdata.Attr{Type: 0, Config: 1, Flags: ek | eh}, "instructions:u"},
		{perfdata.Attr{Type: 0, Config: 1, Flags: ek | eh | eg}, "instructions:uH"},
		{perfdata.Attr{Type: 1, Config: 0, Flags: eu}, "cpu-clock:kh"},
		{perfdata.Attr{Type: 1, Config: 9, Flags: eg}, "dummy"},
		{perfdata.Attr{Type: 3, Config: 0 | 0<<8 | 1<<16, Flags: eg}, "L1-dcache-load-misses"},
		{perfdata.Attr{Type: 3, Config: 2 | 1<<8 | 0<<16, Flags: eg}, "LLC-stores"},
		{perfdata.Attr{Type: 4, Config: 0xc4, Flags: eg}, "rc4"},
		{perfdata.Attr{Type: 0, Config: 99}, ""},
		{perfdata.Attr{Type: 8, Config: 1}, ""},
	} {
		if got := attrName(c.a); got != c.want {
			t.Errorf("type %d config %#x flags %#x: %q, want %q", c.a.Type, c.a.Config, c.a.Flags, got, c.want)
		}
	}
}

package launch

import (
	"fmt"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

func TestParseSpec(t *testing.T) {
	f, err := parseSpec("2:3:4:5:/usr/bin/a:b c")
	if err != nil || f != (shimFDs{3, 4, 5, "/usr/bin/a:b c"}) {
		t.Errorf("parseSpec = %+v %v", f, err)
	}
	for _, bad := range []string{"", "stale", "1:3:4:/x", "2:3:4:5:", "2:3:3:5:/x", "2:3:4:3:/x", "2:3:4:4:/x",
		"2:0:4:5:/x", "2:x:4:5:/x", "2:3:-1:5:/x", "2:+3:4:5:/x", "2:03:4:5:/x", "2:3:4:/x"} {
		if _, err := parseSpec(bad); err == nil {
			t.Errorf("parseSpec(%q) accepted", bad)
		}
	}
}

func TestParseRecords(t *testing.T) {
	r := parseRecords([]byte("r 1500000 250000\ne 13\n"))
	if !r.haveCPU || r.user != 1500*time.Microsecond || r.sys != 250*time.Microsecond || r.errno != unix.EACCES {
		t.Errorf("parseRecords = %+v", r)
	}
	if r := parseRecords([]byte("r -1 5\ne 0\ne 99999\nr 1 2 3\nt -5\nt x\n")); r.haveCPU || r.errno != 0 || r.execAt != 0 {
		t.Errorf("malformed records accepted: %+v", r)
	}
	if r := parseRecords([]byte("r 1 2\nt 123456789\n")); r.execAt != 123456789 {
		t.Errorf("exec time record: %+v", r)
	}
}

// The shim's two parsers never panic, and what the shim writes reads back the same.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"2:3:4:5:/bin/true", "2:3:4:5:a:b", "2:4:3:5:x", "0:::", "2:99999999999999999999:4:5:/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		fds, err := parseSpec(spec)
		if err != nil {
			return
		}
		if fds.goFD < 3 || fds.errFD < 3 || fds.readyFD < 3 || fds.goFD == fds.errFD ||
			fds.readyFD == fds.goFD || fds.readyFD == fds.errFD || fds.path == "" {
			t.Errorf("parseSpec(%q) = %+v", spec, fds)
		}
		if back := fds.String(); back != spec {
			t.Errorf("round trip %q -> %q", spec, back)
		}
	})
}

func FuzzParseRecords(f *testing.F) {
	for _, s := range []string{"r 1 2\n", "e 2\n", "r 1 2\ne 8\n", "r\n\n e", "r 9223372036854775807 0\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := parseRecords(b)
		if r.user < 0 || r.sys < 0 {
			t.Errorf("negative times from %q: %+v", b, r)
		}
		out := fmt.Sprintf("r %d %d\ne %d\n", r.user, r.sys, int(r.errno))
		if r.errno != 0 && r.haveCPU && parseRecords([]byte(out)) != r {
			t.Errorf("round trip of %+v", r)
		}
	})
}

package launch

import (
	"fmt"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

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

// The record parser never panics, and what the shim writes reads back the same.
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

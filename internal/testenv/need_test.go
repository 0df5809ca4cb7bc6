package testenv

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records what a helper asked for instead of doing it.
type recorder struct {
	testing.TB
	fatal, skip, log string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = fmt.Sprintf(format, a...) }
func (r *recorder) Skip(a ...any)                  { r.skip = fmt.Sprint(a...) }
func (r *recorder) Log(a ...any)                   { r.log = fmt.Sprint(a...) }

// TestMissing: a missing prerequisite is a skip (or a log for part of a test) that names it,
// and a failure when CI is set to anything but false or 0.
func TestMissing(t *testing.T) {
	for _, c := range []struct {
		ci   string
		fail bool
	}{{"", false}, {"false", false}, {"0", false}, {"true", true}, {"1", true}} {
		t.Setenv("CI", c.ci)
		r := &recorder{TB: t}
		if p := Tool(r, "pmc-no-such-tool"); p != "" {
			t.Errorf("Tool found %q", p)
		}
		said := r.skip
		if c.fail {
			said = r.fatal
		}
		if !strings.Contains(said, "pmc-no-such-tool is not installed (scripts/deps.sh installs it)") ||
			c.fail != (r.fatal != "") || c.fail == (r.skip != "") {
			t.Errorf("CI=%q: fatal %q skip %q", c.ci, r.fatal, r.skip)
		}
		r = &recorder{TB: t}
		HaveTool(r, "pmc-no-such-tool", "its output not compared")
		if said = r.log; c.fail {
			said = r.fatal
		}
		if !strings.Contains(said, "its output not compared") || c.fail != (r.fatal != "") || c.fail == (r.log != "") {
			t.Errorf("CI=%q, part of a test: fatal %q log %q", c.ci, r.fatal, r.log)
		}
	}
	if p := Tool(t, "sh"); p == "" {
		t.Error("sh not found")
	}
}

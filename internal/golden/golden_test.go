package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Errorf(format string, a ...any) { r.failed, r.msg = true, format }
func (r *recorder) Fatalf(format string, a ...any) { r.failed, r.msg = true, format }
func (r *recorder) Fatal(a ...any)                 { r.failed = true }

func TestCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.golden")
	os.WriteFile(p, []byte("a\nb\n"), 0o644)
	r := &recorder{TB: t}
	Check(r, p, []byte("a\nb\n"))
	if r.failed {
		t.Fatal("equal output failed")
	}
	Check(r, p, []byte("a\nc\n"))
	if !r.failed {
		t.Fatal("different output passed")
	}
	r = &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "missing"), []byte("x"))
	if !r.failed {
		t.Fatal("missing golden file passed")
	}
	if d := Diff("a\nb", "a\nc"); !strings.Contains(d, `line 2:`) || !strings.Contains(d, `"c"`) {
		t.Errorf("diff %q", d)
	}
}

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
	// Compare, as without -update and -update-perf (this test runs under both).
	defer func(u, up bool) { *update, *updatePerf = u, up }(*update, *updatePerf)
	*update, *updatePerf = false, false
	t.Setenv("PMC_UPDATE_GOLDEN", "")
	t.Setenv("PMC_UPDATE_PERF_GOLDEN", "")
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
	// -update-perf alone leaves pmc's goldens compared; -update alone leaves perf's files.
	*updatePerf = true
	if Updating() {
		t.Error("-update-perf rewrites pmc's goldens")
	}
	*update, *updatePerf = true, false
	if UpdatingPerf() {
		t.Error("-update rewrites perf's files")
	}
	r = &recorder{TB: t}
	Check(r, p, []byte("new\n"))
	if b, _ := os.ReadFile(p); r.failed || string(b) != "new\n" {
		t.Errorf("-update: Check failed %v, the file holds %q", r.failed, b)
	}
}

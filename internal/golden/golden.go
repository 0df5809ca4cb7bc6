// Package golden compares test output with golden files kept in testdata/. `go test -update`
// (or PMC_UPDATE_GOLDEN=1) rewrites pmc's golden files instead. The reference files made by
// running perf on the machine that recorded the test data (perf's outputs, and the symbol
// archives of its recordings) are rewritten only with -update-perf (or
// PMC_UPDATE_PERF_GOLDEN=1; scripts/update-perf-goldens.sh): regenerating pmc's goldens
// never replaces the reference they are checked against. Only tests import it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	update     = flag.Bool("update", false, "rewrite pmc's golden files in testdata/ instead of comparing")
	updatePerf = flag.Bool("update-perf", false, "run perf to rewrite the reference files made by perf (on the machine that recorded the test data)")
)

// Updating reports whether pmc's golden files are being rewritten in this run.
func Updating() bool { return *update || os.Getenv("PMC_UPDATE_GOLDEN") == "1" }

// UpdatingPerf reports whether the files made by running perf are being rewritten.
func UpdatingPerf() bool { return *updatePerf || os.Getenv("PMC_UPDATE_PERF_GOLDEN") == "1" }

// Check compares got with the file at path, or writes it there when Updating.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, Diff(string(want), string(got)))
	}
}

// Write writes a golden file (creating its directory).
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Diff shows the first lines that differ, with their line numbers, then both texts whole.
func Diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; (i < len(wl) || i < len(gl)) && shown < 10; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, w, g)
			shown++
		}
	}
	fmt.Fprintf(&b, "--- got\n%s\n--- want\n%s", got, want)
	return b.String()
}

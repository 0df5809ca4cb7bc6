// Package golden compares test output with golden files kept in testdata/. `go test -update`
// (or PMC_UPDATE_GOLDEN=1) rewrites the files instead. Only tests import it.
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

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ instead of comparing")

// Updating reports whether golden files are being rewritten in this run.
func Updating() bool { return *update || os.Getenv("PMC_UPDATE_GOLDEN") == "1" }

// Check compares got with the file at path, or writes it there when Updating.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
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

package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

const corpus = "../../test/perfcorpus/testdata/data"

// -i -: a recording piped in (perf record -o - | pmc report -i -) loads from Stdin; perf
// report counts 561 samples in this one.
func TestLoadPipe(t *testing.T) {
	b, err := testenv.ReadGzip(filepath.Join(corpus, "here.pipe-g.data.gz"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(Options{Path: "-", Stdin: bytes.NewReader(b), Symfs: t.TempDir(), Kallsyms: "/dev/null"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Profile.Samples); n != 561 || !r.HasChains {
		t.Errorf("%d samples (chains %v), want 561 with chains", n, r.HasChains)
	}
}

// A header feature that does not decode is said, once, and the file is read.
func TestLoadSkippedFeature(t *testing.T) {
	b, err := testenv.ReadGzip(filepath.Join(corpus, "perf.data.armv7.perf_3.14-3.8.gz"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "armv7.data")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(Options{Path: path, Symfs: t.TempDir(), Kallsyms: "/dev/null"})
	if err != nil {
		t.Fatal(err)
	}
	said := 0
	for _, w := range r.Warnings {
		if strings.Contains(w, "header feature CPUDESC skipped") {
			said++
		}
	}
	if said != 1 || len(r.Profile.Samples) != 700 {
		t.Errorf("warnings %q, %d samples: want CPUDESC said once and 700 samples", r.Warnings, len(r.Profile.Samples))
	}
}

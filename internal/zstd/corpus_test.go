package zstd

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// corpus is the perf.data files of test/perfcorpus (perf 3.2 to 6.12, four architectures):
// the records pmc record -z compresses, written by others.
func corpus(t testing.TB) map[string][]byte {
	paths, _ := filepath.Glob("../../test/perfcorpus/testdata/data/*.gz")
	if len(paths) == 0 {
		t.Fatal("no perf.data files in test/perfcorpus/testdata/data")
	}
	m := map[string][]byte{}
	for _, p := range paths {
		b, err := testenv.ReadGzip(p)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(p)] = b
	}
	return m
}

// TestCorpus: every perf.data file round-trips as one frame and as a stream in pieces the
// size pmc record hands over, and compresses to within 25% of zstd -1's size (libzstd,
// with its per-block tables; this encoder at level 1 is its match).
func TestCorpus(t *testing.T) {
	zstd, _ := exec.LookPath("zstd")
	var ours, theirs, raw int
	for name, in := range corpus(t) {
		z := Compress(nil, in, Options{Level: 1, Checksum: true})
		out, err := Decode(z)
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("%s: %d bytes decoded, want %d: %v", name, len(out), len(in), err)
		}
		e := NewEncoder(Options{})
		var s []byte
		for p := 0; p < len(in); p += 60000 {
			s = e.Append(s, in[p:min(p+60000, len(in))])
		}
		if out, err := Decode(e.Close(s)); err != nil || !bytes.Equal(out, in) {
			t.Fatalf("%s as a stream: %d bytes decoded, want %d: %v", name, len(out), len(in), err)
		}
		if zstd == "" {
			continue
		}
		cmd := exec.Command(zstd, "-1", "-c", "-q")
		cmd.Stdin = bytes.NewReader(in)
		ref, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(zstd, "-d", "-c", "-q")
		cmd.Stdin = bytes.NewReader(z)
		if out, err := cmd.Output(); err != nil || !bytes.Equal(out, in) {
			t.Fatalf("%s: zstd -d: %d bytes, want %d: %v", name, len(out), len(in), err)
		}
		ours, theirs, raw = ours+len(z), theirs+len(ref), raw+len(in)
		if len(z) > len(ref)*5/4+64 {
			t.Errorf("%s: %d bytes compressed to %d, zstd -1 makes %d", name, len(in), len(z), len(ref))
		}
	}
	if zstd == "" {
		t.Skip("round trips done; the zstd command is not installed for the comparison (Debian package zstd)")
	}
	t.Logf("corpus: %d bytes; level 1 %d (ratio %.2f), zstd -1 %d (ratio %.2f)", raw, ours,
		float64(raw)/float64(ours), theirs, float64(raw)/float64(theirs))
}

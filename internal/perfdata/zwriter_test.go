package perfdata

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/zstd"
)

// compressedCopy writes f's events, records and features with the records compressed,
// chunk bytes at most in each COMPRESSED record.
func compressedCopy(t *testing.T, f *File, recs []Record, path string, chunk int) {
	t.Helper()
	copyWith(t, f, recs, path, func(w *Writer) {
		w.Compress(zstd.NewEncoder(zstd.Options{Level: 1}), chunk)
		w.Features.Compressed = &Compressed{Type: CompressZstd, Level: 1, MmapLen: 129 << 12}
	})
}

// topTypes counts the records of a file's data section as they lie in it (compressed ones
// not opened).
func topTypes(t *testing.T, path string) map[uint32]int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off, size := le.Uint64(b[40:]), le.Uint64(b[48:])
	m := map[uint32]int{}
	for p := off; p < off+size; p += uint64(le.Uint16(b[p+6:])) {
		if le.Uint16(b[p+6:]) < 8 {
			t.Fatalf("a record of %d bytes at %d", le.Uint16(b[p+6:]), p)
		}
		m[le.Uint32(b[p:])]++
	}
	return m
}

// A compressed copy reads back as the file it copies; records longer than a chunk are
// split across COMPRESSED records and joined again; FINISHED_ROUND stays outside them.
func TestCompressRoundTrip(t *testing.T) {
	for _, name := range recorded {
		for _, chunk := range []int{64, 1000, 1 << 20} {
			f, recs := readAll(t, filepath.Join("testdata", name))
			path := filepath.Join(t.TempDir(), name)
			compressedCopy(t, f, recs, path, chunk)
			g, recs2 := readAll(t, path)
			if !reflect.DeepEqual(withoutOffsets(recs), withoutOffsets(recs2)) {
				t.Fatalf("%s, chunks of %d: records differ after a round trip", name, chunk)
			}
			c := g.Features.Compressed
			if c == nil || c.Type != CompressZstd || c.Level != 1 || c.MmapLen != 129<<12 || c.Ratio < 2 {
				t.Fatalf("%s, chunks of %d: HEADER_COMPRESSED %+v", name, chunk, c)
			}
			types := topTypes(t, path)
			rounds := 0
			for _, r := range recs {
				if _, ok := r.(*FinishedRound); ok {
					rounds++
				}
			}
			if types[RecordCompressed] == 0 || types[RecordFinishedRound] != rounds || len(types) != 1+min(rounds, 1) {
				t.Fatalf("%s, chunks of %d: records in the file %v, want COMPRESSED and %d FINISHED_ROUND", name, chunk, types, rounds)
			}
		}
	}
}

// perf reads the compressed copy as the file: perf script prints the same, and perf
// report --header-only and --stats say what the file is.
func TestCompressPerfReads(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed")
	}
	for _, name := range recorded {
		for _, chunk := range []int{1000, 1 << 20} {
			orig := filepath.Join("testdata", name)
			f, recs := readAll(t, orig)
			path := filepath.Join(t.TempDir(), name)
			compressedCopy(t, f, recs, path, chunk)
			want, got := perfScript(t, orig), perfScript(t, path)
			if len(want) < 100 || got != want {
				t.Fatalf("%s, chunks of %d: perf script prints %d bytes, of the file %d", name, chunk, len(got), len(want))
			}
			hdr := perfReport(t, path, "--header-only")
			if !strings.Contains(hdr, "# compressed : Zstd, level = 1, ratio = ") {
				t.Errorf("%s: perf report --header-only:\n%s", name, hdr)
			}
			if st := perfReport(t, path, "--stats"); !strings.Contains(st, "COMPRESSED events:") {
				t.Errorf("%s: perf report --stats:\n%s", name, st)
			}
		}
	}
}

// A compressed pipe (perf record -z -o -): perf script -i - prints what it prints of the
// plain pipe.
func TestCompressPipePerfReads(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed")
	}
	path := filepath.Join("testdata", "callgraph.data")
	f, recs := readAll(t, path)
	var buf bytes.Buffer
	fs := f.Features
	fs.Compressed = &Compressed{Type: CompressZstd, Level: 1, MmapLen: 129 << 12}
	w, err := NewPipeWriter(&buf, f.Events, fs)
	if err != nil {
		t.Fatal(err)
	}
	w.Compress(zstd.NewEncoder(zstd.Options{}), 4096)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if in, out := w.CompressedSizes(); in == 0 || out*2 > in {
		t.Errorf("%d bytes of records compressed to %d", in, out)
	}
	run := func(stdin []byte, args ...string) string {
		cmd := exec.Command("perf", append([]string{"script"}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("perf script %v: %v", args, err)
		}
		return string(out)
	}
	want, got := run(pipeCopy(t, f, recs), "-i", "-"), run(buf.Bytes(), "-i", "-")
	if len(want) < 100 || got != want {
		t.Errorf("perf script -i - on the compressed pipe: %d bytes, on the plain one %d", len(got), len(want))
	}
	g, err := NewPipe(onlyReader{bytes.NewReader(buf.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	if g.Features.Compressed == nil || g.Features.Compressed.Ratio != 0 {
		t.Errorf("the pipe's HEADER_COMPRESSED: %+v, want ratio 0 (written first)", g.Features.Compressed)
	}
}

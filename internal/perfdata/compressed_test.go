package perfdata

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"
)

// perf record -z: the records inside the COMPRESSED ones come out in their place; perf
// report counts 45 samples in this recording (here.zstd.data, perf 6.1).
func TestCompressed(t *testing.T) {
	b := corpusFile(t, "here.zstd.data")
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, r := range records(t, f) {
		switch r.(type) {
		case *Sample:
			counts["sample"]++
		case *Mmap:
			counts["mmap"]++
		case *Comm:
			counts["comm"]++
		}
	}
	if counts["sample"] != 45 || counts["mmap"] == 0 || counts["comm"] == 0 {
		t.Errorf("records %v, want 45 samples and the mmap and comm records", counts)
	}
}

// A compressed file whose writer stopped anywhere in its data reads up to there (as an
// unfinished file does) or fails in one line: never a hang, never a panic.
func TestCompressedCut(t *testing.T) {
	b := corpusFile(t, "here.zstd.data")
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	read, failed := 0, 0
	for cut := uint64(8); cut < f.Data.Size; cut += 61 {
		// A writer that stopped there: data size 0, the records to the end of the file.
		c := bytes.Clone(b[:f.Data.Offset+cut])
		binary.LittleEndian.PutUint64(c[48:], 0)
		g, err := NewFile(bytes.NewReader(c), int64(len(c)))
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		rs := g.Records()
		for {
			_, err := rs.Next()
			if err == io.EOF {
				read++
				break
			}
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("cut at %d: error of several lines: %v", cut, err)
				}
				failed++
				break
			}
		}
	}
	if read == 0 {
		t.Errorf("%d cuts read to their end, %d failed: want the records before each cut", read, failed)
	}
}

package zstd

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// FuzzRoundTrip: any input, written at once or in pieces, at each effort, decodes (the
// standard library's decoder) to itself.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("perf record -z perf record -z perf"), uint8(1), uint16(7))
	f.Add(perfLike(rand.New(rand.NewPCG(1, 1)), 3), uint8(3), uint16(100))
	f.Add(bytes.Repeat([]byte{0}, 300), uint8(1), uint16(0))
	f.Fuzz(func(t *testing.T, in []byte, level uint8, piece uint16) {
		o := Options{Level: int(level % 4), Checksum: level&4 != 0}
		z := Compress(nil, in, o)
		if out, err := Decode(z); err != nil || !bytes.Equal(out, in) {
			t.Fatalf("Compress: %d bytes decoded, want %d: %v", len(out), len(in), err)
		}
		e := NewEncoder(o)
		var s []byte
		step := int(piece) + 1
		for p := 0; p < len(in); p += step {
			s = e.Append(s, in[p:min(p+step, len(in))])
		}
		if out, err := Decode(e.Close(s)); err != nil || !bytes.Equal(out, in) {
			t.Fatalf("in pieces of %d: %d bytes decoded, want %d: %v", step, len(out), len(in), err)
		}
	})
}

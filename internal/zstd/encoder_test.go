package zstd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
)

// inputs are the round-trip cases: sizes at the edges of the literal headers, the
// sequence counts and the blocks, random and repetitive bytes, perf-like records.
func inputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	// text-like: words from a small vocabulary
	words := []string{"perf ", "record ", "sample ", "cycles ", "0x7f12 ", "[kernel] ", "\n", "pmc "}
	text := func(n int) []byte {
		var b []byte
		for len(b) < n {
			b = append(b, words[rng.IntN(len(words))]...)
		}
		return b[:n]
	}
	m := map[string][]byte{
		"empty":    {},
		"1byte":    {42},
		"2bytes":   {1, 2},
		"zeros5":   make([]byte, 5),
		"zeros1M":  make([]byte, 1<<20),
		"random31": random(31), "random32": random(32), "random4095": random(4095), "random4096": random(4096),
		"random100k":   random(100000),
		"random600k":   random(600 << 10),
		"text1000":     text(1000),
		"text_block":   text(MaxBlockSize),
		"text_block+1": text(MaxBlockSize + 1),
		"text_block-1": text(MaxBlockSize - 1),
		"text_3blocks": text(3*MaxBlockSize + 17),
		"text_2M":      text(2 << 20),
		"perf_like":    perfLike(rng, 20000),
	}
	// a repeat far back: beyond the window (must not be referenced) and just inside it
	far := random(64 << 10)
	m["far_repeat"] = append(append(append([]byte{}, far...), random(WindowSize)...), far...)
	near := append(append([]byte{}, far...), random(WindowSize-len(far)-100)...)
	m["near_repeat"] = append(near, far...)
	// runs: many sequences (more than 0x7f00 in one block)
	runs := make([]byte, 0, MaxBlockSize)
	for len(runs) < MaxBlockSize {
		runs = append(runs, byte(rng.IntN(4)), 'a', 'b', 'c', 'd')
	}
	m["many_sequences"] = runs
	return m
}

// perfLike is n sample records as a ring holds them: header, ip, pid/tid, time, period,
// a call chain from a few stacks.
func perfLike(rng *rand.Rand, n int) []byte {
	var b []byte
	le := binary.LittleEndian
	t := uint64(1e12)
	stacks := [][]uint64{{0xffffffff81000100, 0xffffffff81000200, 0x401000}, {0x401234, 0x401000}, {0x7f0000123456}}
	for i := 0; i < n; i++ {
		st := stacks[rng.IntN(len(stacks))]
		size := 8 + 8*4 + 8 + 8*len(st)
		b = le.AppendUint32(b, 9)
		b = le.AppendUint16(b, 2)
		b = le.AppendUint16(b, uint16(size))
		b = le.AppendUint64(b, st[0]+uint64(rng.IntN(64)))
		b = le.AppendUint32(b, 4242)
		b = le.AppendUint32(b, 4242)
		t += 250000 + uint64(rng.IntN(5000))
		b = le.AppendUint64(b, t)
		b = le.AppendUint64(b, 250000+uint64(rng.IntN(100)))
		b = le.AppendUint64(b, uint64(len(st)))
		for _, ip := range st {
			b = le.AppendUint64(b, ip)
		}
	}
	return b
}

func TestRoundTripStdlib(t *testing.T) {
	for name, in := range inputs() {
		for _, o := range []Options{{Level: 1}, {Level: 3, Checksum: true}} {
			t.Run(fmt.Sprintf("%s/level%d", name, o.Level), func(t *testing.T) {
				z := Compress(nil, in, o)
				out, err := Decode(z)
				if err != nil {
					t.Fatalf("decoding %d bytes from %d: %v", len(z), len(in), err)
				}
				if !bytes.Equal(out, in) {
					t.Fatalf("decoded %d bytes, want %d (first difference at %d)", len(out), len(in), firstDiff(out, in))
				}
			})
		}
	}
}

// TestStreamStdlib: a frame written in pieces of every size, then closed, decodes to all
// of them; each piece's output, appended to what came before, decodes to everything so far
// (the flush perf's reader relies on).
func TestStreamStdlib(t *testing.T) {
	in := inputs()
	src := append(append(append([]byte{}, in["perf_like"]...), in["random4095"]...), in["text_3blocks"]...)
	for _, o := range []Options{{Level: 1, Checksum: true}, {Level: 3}} {
		e := NewEncoder(o)
		rng := rand.New(rand.NewPCG(3, 4))
		var z []byte
		for p := 0; p < len(src); {
			n := min(len(src)-p, 1+rng.IntN(70000))
			z = e.Append(z, src[p:p+n])
			p += n
			if rng.IntN(8) == 0 {
				got := decodePrefix(t, z)
				if !bytes.Equal(got, src[:p]) {
					t.Fatalf("level %d: after %d bytes the stream decodes to %d bytes (first difference at %d)", o.Level, p, len(got), firstDiff(got, src[:p]))
				}
			}
		}
		z = e.Close(z)
		out, err := Decode(z)
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("level %d: closed stream: %d bytes, %v", o.Level, len(out), err)
		}
	}
}

// decodePrefix decodes an unfinished frame: what the decoder returns before it runs out.
func decodePrefix(t *testing.T, z []byte) []byte {
	t.Helper()
	// An unfinished frame ends in an unexpected EOF after its last whole block.
	out, err := Decode(z)
	if err == nil {
		t.Fatal("an unfinished frame decoded without an error")
	}
	return out
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestZstdCommand: the zstd command-line tool (libzstd) decodes the frames, checksums
// verified.
func TestZstdCommand(t *testing.T) {
	zstd, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("the zstd command is not installed (Debian package zstd; scripts/deps.sh installs it)")
	}
	dir := t.TempDir()
	for name, in := range inputs() {
		for _, o := range []Options{{Level: 1, Checksum: true}, {Level: 3}} {
			path := fmt.Sprintf("%s/%s.%d.zst", dir, name, o.Level)
			if err := os.WriteFile(path, Compress(nil, in, o), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(zstd, "-d", "-c", "-q", path).Output()
			if err != nil {
				t.Fatalf("%s level %d: zstd -d: %v", name, o.Level, err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("%s level %d: zstd -d gave %d bytes, want %d", name, o.Level, len(out), len(in))
			}
		}
	}
	// A stream closed after many appends.
	src := inputs()["text_2M"]
	e := NewEncoder(Options{Checksum: true})
	var z []byte
	for p := 0; p < len(src); p += 40000 {
		z = e.Append(z, src[p:min(p+40000, len(src))])
	}
	z = e.Close(z)
	path := dir + "/stream.zst"
	os.WriteFile(path, z, 0o644)
	out, err := exec.Command(zstd, "-d", "-c", "-q", path).Output()
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("stream: zstd -d: %v (%d bytes, want %d)", err, len(out), len(src))
	}
}

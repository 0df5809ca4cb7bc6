package zstd

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// literalsOnly is data with no match worth taking: its literals are the block.
func literalsOnly(rng *rand.Rand, n int, sym func() byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = sym()
	}
	return b
}

// TestHuffmanForms: each form of the tree description, checked to be the one used, and
// the block decoded.
func TestHuffmanForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	skewed := func(k int) func() byte {
		return func() byte { // symbol i with probability ~2^-i: a long code for the rare ones
			for i := 0; i < k; i++ {
				if rng.IntN(2) == 0 {
					return byte(i * 7)
				}
			}
			return byte(k * 7)
		}
	}
	cases := []struct {
		name string
		in   []byte
		desc func(b byte) bool // the description's first byte
	}{
		// few small symbols: 4-bit weights are shorter than an FSE table
		{"direct", literalsOnly(rng, 3000, func() byte { return byte(rng.IntN(3)) * byte(rng.IntN(2)) }), func(b byte) bool { return b >= 128 }},
		// symbols up to 255: only the FSE form can describe them
		{"fse", literalsOnly(rng, 20000, func() byte { return 255 - skewed(8)() }), func(b byte) bool { return b < 128 }},
		// codes longer than 11 bits before the limit
		{"limited", literalsOnly(rng, 100000, skewed(30)), nil},
		// 16 equally likely symbols: every weight equal, which FSE cannot end: 4-bit weights
		{"one weight", literalsOnly(rng, 5000, func() byte { return byte(rng.IntN(16)) }), func(b byte) bool { return b >= 128 }},
	}
	for _, c := range cases {
		h := newHuffEncoder()
		lits, ok := h.appendLiterals(nil, c.in)
		if !ok {
			t.Errorf("%s: not Huffman coded", c.name)
			continue
		}
		maxLen := uint8(0)
		for _, l := range h.nbits {
			maxLen = max(maxLen, l)
		}
		if maxLen > maxHuffBits {
			t.Errorf("%s: a code of %d bits", c.name, maxLen)
		}
		if c.desc != nil && !c.desc(h.desc[0]) {
			t.Errorf("%s: description header %#x", c.name, h.desc[0])
		}
		if len(lits) >= len(c.in) {
			t.Errorf("%s: %d literals coded in %d bytes", c.name, len(c.in), len(lits))
		}
		z := Compress(nil, c.in, Options{})
		if out, err := Decode(z); err != nil || !bytes.Equal(out, c.in) {
			t.Errorf("%s: decoded %d bytes, want %d: %v", c.name, len(out), len(c.in), err)
		}
	}
}

// TestNormalize: the counts sum to the table size and no present symbol is lost.
func TestNormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 2000; i++ {
		n := 2 + rng.IntN(52)
		counts := make([]int, n)
		total := 0
		for s := range counts {
			if rng.IntN(3) > 0 {
				counts[s] = rng.IntN(1 + rng.IntN(10000))
			}
			total += counts[s]
		}
		if total == 0 {
			continue
		}
		log := uint8(6 + rng.IntN(4))
		norm := normalize(nil, counts, total, log)
		sum := 0
		for s, p := range norm {
			if (counts[s] > 0) != (p > 0) {
				t.Fatalf("symbol %d: count %d, normalized %d", s, counts[s], p)
			}
			sum += int(p)
		}
		if sum != 1<<log {
			t.Fatalf("counts %v: normalized to %v, sum %d, want %d", counts, norm, sum, 1<<log)
		}
	}
}

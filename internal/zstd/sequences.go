package zstd

import (
	"math"
	"math/bits"
)

// seq is one sequence (RFC 3.1.1.3.2): ll literals, then ml bytes copied from offBase's
// offset (offBase 1-3: a repeat offset, else the offset plus 3).
type seq struct {
	ll, ml, offBase uint32
}

// Literal length codes 16-35 and match length codes 32-52: their baselines and extra
// bits (RFC 3.1.1.3.2.1.1). Codes below them are the length itself (ml-3 for matches).
var (
	llBase = [36]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28,
		32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}
	llBits = [36]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6,
		7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	mlBase = [53]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
		24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99,
		131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539}
	mlBits = [53]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
)

// llCode is the literal length code of ll.
func llCode(ll uint32) uint8 {
	if ll < 16 {
		return uint8(ll)
	}
	if ll >= 64 {
		return uint8(bits.Len32(ll) - 1 + 19)
	}
	c := uint8(16)
	for llBase[c+1] <= ll {
		c++
	}
	return c
}

// mlCode is the match length code of ml (at least 3).
func mlCode(ml uint32) uint8 {
	b := ml - 3
	if b < 32 {
		return uint8(b)
	}
	if b >= 128 {
		return uint8(bits.Len32(b) - 1 + 36)
	}
	c := uint8(32)
	for mlBase[c+1] <= ml {
		c++
	}
	return c
}

// Symbol_Compression_Modes (RFC 3.1.1.3.2.1).
const (
	modePredefined = 0
	modeRLE        = 1
	modeCompressed = 2
)

// The three kinds of code in the order of the block's tables, and their largest
// accuracy logs.
const (
	kLL = iota
	kOF
	kML
)

var maxLogs = [3]uint8{9, 8, 9}

// seqCoder writes Sequences_Sections: for each kind of code, the table that costs least
// for this block (predefined, one repeated code, or a table of the block's own).
type seqCoder struct {
	pre   [3]*fseTable
	own   [3]fseTable
	norm  [3][]int16
	count [3][53]int
	codes []uint8 // ll, of, ml code of each sequence
	use   [3]*fseTable
	bw    bitWriter
}

func newSeqCoder() *seqCoder {
	return &seqCoder{pre: [3]*fseTable{newFSETable(llNorm[:], 6), newFSETable(ofNorm[:], 5), newFSETable(mlNorm[:], 6)}}
}

// appendSequences appends the Sequences_Section of seqs.
func (c *seqCoder) appendSequences(dst []byte, seqs []seq) []byte {
	n := len(seqs)
	switch {
	case n < 128:
		dst = append(dst, byte(n))
	case n < 0x7f00:
		dst = append(dst, byte(n>>8+128), byte(n))
	default:
		dst = append(dst, 0xff, byte(n-0x7f00), byte((n-0x7f00)>>8))
	}
	if n == 0 {
		return dst
	}
	c.count = [3][53]int{}
	c.codes = resize(c.codes, 3*n)
	for i, s := range seqs {
		llc, ofc, mlc := llCode(s.ll), uint8(bits.Len32(s.offBase)-1), mlCode(s.ml)
		c.codes[3*i], c.codes[3*i+1], c.codes[3*i+2] = llc, ofc, mlc
		c.count[kLL][llc]++
		c.count[kOF][ofc]++
		c.count[kML][mlc]++
	}
	modes := len(dst)
	dst = append(dst, 0)
	for k := range 3 {
		var mode byte
		mode, dst = c.choose(dst, k, n)
		dst[modes] |= mode << (6 - 2*k)
	}
	return c.encode(dst, seqs)
}

// choose picks kind k's table, appends its description and returns its mode.
func (c *seqCoder) choose(dst []byte, k, n int) (byte, []byte) {
	counts := c.count[k][:]
	maxSym, present := 0, 0
	for s, x := range counts {
		if x > 0 {
			maxSym = s
			present++
		}
	}
	if present == 1 {
		c.norm[k] = resize(c.norm[k], maxSym+1)
		clear(c.norm[k])
		c.norm[k][maxSym] = 1
		c.own[k].build(c.norm[k], 0)
		c.use[k] = &c.own[k]
		return modeRLE, append(dst, byte(maxSym))
	}
	pre := c.pre[k]
	preCost := math.Inf(1)
	if maxSym < len(pre.norm) {
		preCost = cost(counts[:maxSym+1], pre.norm, pre.log)
	}
	log := min(maxLogs[k], max(5, uint8(bits.Len(uint(n)))-1, uint8(bits.Len(uint(present)))+1))
	c.norm[k] = normalize(c.norm[k], counts[:maxSym+1], n, log)
	at := len(dst)
	dst = appendNormCounts(dst, c.norm[k], log)
	ownCost := cost(counts[:maxSym+1], c.norm[k], log) + float64(8*(len(dst)-at))
	if preCost <= ownCost {
		c.use[k] = pre
		return modePredefined, dst[:at]
	}
	c.own[k].build(c.norm[k], log)
	c.use[k] = &c.own[k]
	return modeCompressed, dst
}

// cost estimates the bits that coding counts with a distribution takes.
func cost(counts []int, norm []int16, log uint8) float64 {
	bitsTotal := 0.0
	for s, x := range counts {
		if x == 0 {
			continue
		}
		p := max(1, int(norm[s]))
		if norm[s] == 0 {
			return math.Inf(1)
		}
		bitsTotal += float64(x) * (float64(log) - math.Log2(float64(p)))
	}
	return bitsTotal
}

// encode writes the sequences' bitstream: from the last sequence to the first, each in the
// reverse of the order the decoder reads it (the decoder starts at the end of the stream).
func (c *seqCoder) encode(dst []byte, seqs []seq) []byte {
	ll, of, ml := c.use[kLL], c.use[kOF], c.use[kML]
	bw := &c.bw
	bw.b, bw.acc, bw.n = dst, 0, 0
	n := len(seqs)
	s, cd := seqs[n-1], c.codes[3*(n-1):]
	llState, ofState, mlState := ll.first[cd[0]], of.first[cd[1]], ml.first[cd[2]]
	bw.add(uint64(s.ll-llBase[cd[0]]), llBits[cd[0]])
	bw.add(uint64(s.ml-mlBase[cd[2]]), mlBits[cd[2]])
	bw.add(uint64(s.offBase), cd[1])
	for i := n - 2; i >= 0; i-- {
		s, cd := seqs[i], c.codes[3*i:]
		ofState = of.encode(bw, cd[1], ofState)
		mlState = ml.encode(bw, cd[2], mlState)
		llState = ll.encode(bw, cd[0], llState)
		bw.add(uint64(s.ll-llBase[cd[0]]), llBits[cd[0]])
		bw.add(uint64(s.ml-mlBase[cd[2]]), mlBits[cd[2]])
		bw.add(uint64(s.offBase), cd[1])
	}
	bw.add(uint64(mlState), ml.log)
	bw.add(uint64(ofState), of.log)
	bw.add(uint64(llState), ll.log)
	return bw.close()
}

package zstd

import "slices"

const (
	maxHuffBits = 11 // the longest code (libzstd's default table log)
	// minHuffLiterals: below this, a table costs more than it saves.
	minHuffLiterals = 64
	weightLog       = 6 // the accuracy of the weights' FSE table (its maximum, RFC 4.2.1.2)
)

// huffEncoder codes a block's literals with a Huffman table of their own (RFC 4.2): the
// table is described in the block by its weights, FSE-compressed or, for at most 128
// symbols, 4 bits each.
type huffEncoder struct {
	count [256]int
	nbits [256]uint8 // code length per symbol; 0: absent
	code  [256]uint16
	desc  []byte // the tree description
	bw    bitWriter
	nodes []huffNode
	ws    []uint8
}

type huffNode struct {
	freq        int
	left, right int16 // children in nodes; -1: a leaf
	sym         uint8
}

func newHuffEncoder() *huffEncoder { return &huffEncoder{} }

// appendLiterals appends lits as a Compressed_Literals_Block, or says it would not be
// smaller than the raw bytes.
func (h *huffEncoder) appendLiterals(dst, lits []byte) ([]byte, bool) {
	h.count = [256]int{}
	for _, c := range lits {
		h.count[c]++
	}
	if !h.build() {
		return dst, false
	}
	if !h.describe() {
		return dst, false
	}
	// Estimate before encoding: the streams' bits plus the description and jump table.
	total := 0
	for s, n := range h.count {
		total += n * int(h.nbits[s])
	}
	n := len(lits)
	if total/8+len(h.desc)+6+5 >= n-n>>5 {
		return dst, false
	}
	single := n <= 1023
	hdrAt := len(dst)
	hdrSize := 5
	switch {
	case single, n < 1024:
		hdrSize = 3
	case n < 16384:
		hdrSize = 4
	}
	dst = append(dst, make([]byte, hdrSize)...)
	dst = append(dst, h.desc...)
	if single {
		dst = h.appendStream(dst, lits)
	} else {
		jump := len(dst)
		dst = append(dst, make([]byte, 6)...)
		seg := (n + 3) / 4
		for i := 0; i < 4; i++ {
			start := len(dst)
			dst = h.appendStream(dst, lits[i*seg:min((i+1)*seg, n)])
			if i < 3 {
				size := len(dst) - start
				if size > 0xffff {
					return dst[:hdrAt], false
				}
				dst[jump+2*i], dst[jump+2*i+1] = byte(size), byte(size>>8)
			}
		}
	}
	comp := len(dst) - hdrAt - hdrSize
	if comp >= n || hdrSize == 3 && comp > 1023 || hdrSize == 4 && comp >= 16384 {
		return dst[:hdrAt], false
	}
	// Literals_Section_Header: type, Size_Format, then Regenerated_Size and
	// Compressed_Size of 10, 14 or 18 bits.
	var v uint64
	switch hdrSize {
	case 3:
		format := uint64(1)
		if single {
			format = 0
		}
		v = litCompressed | format<<2 | uint64(n)<<4 | uint64(comp)<<14
	case 4:
		v = litCompressed | 2<<2 | uint64(n)<<4 | uint64(comp)<<18
	default:
		v = litCompressed | 3<<2 | uint64(n)<<4 | uint64(comp)<<22
	}
	for i := 0; i < hdrSize; i++ {
		dst[hdrAt+i] = byte(v >> (8 * i))
	}
	return dst, true
}

// appendStream appends one Huffman stream: the literals from the last to the first (the
// decoder reads the stream backwards), each code highest bit first.
func (h *huffEncoder) appendStream(dst, lits []byte) []byte {
	h.bw.b, h.bw.acc, h.bw.n = dst, 0, 0
	for i := len(lits) - 1; i >= 0; i-- {
		c := lits[i]
		h.bw.add(uint64(h.code[c]), h.nbits[c])
	}
	return h.bw.close()
}

// build makes the code lengths (at most maxHuffBits, a complete code) and the canonical
// codes the decoder derives from the weights. It fails for fewer than 2 symbols.
func (h *huffEncoder) build() bool {
	h.nodes = h.nodes[:0]
	for s, n := range h.count {
		h.nbits[s] = 0
		if n > 0 {
			h.nodes = append(h.nodes, huffNode{freq: n, left: -1, right: -1, sym: uint8(s)})
		}
	}
	leaves := len(h.nodes)
	if leaves < 2 {
		return false
	}
	slices.SortFunc(h.nodes, func(a, b huffNode) int {
		if a.freq != b.freq {
			return a.freq - b.freq
		}
		return int(a.sym) - int(b.sym)
	})
	// Two queues: the leaves by frequency, then the internal nodes in the order made.
	li, ii := 0, leaves
	pick := func() int {
		if li < leaves && (ii >= len(h.nodes) || h.nodes[li].freq <= h.nodes[ii].freq) {
			li++
			return li - 1
		}
		ii++
		return ii - 1
	}
	for k := 0; k < leaves-1; k++ {
		a, b := pick(), pick()
		h.nodes = append(h.nodes, huffNode{freq: h.nodes[a].freq + h.nodes[b].freq, left: int16(a), right: int16(b)})
	}
	// Depths from the root down (children come before their parent).
	depth := make([]uint8, len(h.nodes))
	for i := len(h.nodes) - 1; i >= leaves; i-- {
		d := depth[i] + 1
		depth[h.nodes[i].left], depth[h.nodes[i].right] = d, d
	}
	maxLen := uint8(0)
	for i := 0; i < leaves; i++ {
		h.nbits[h.nodes[i].sym] = depth[i]
		maxLen = max(maxLen, depth[i])
	}
	if maxLen > maxHuffBits {
		h.limit(leaves)
	}
	h.assign()
	return true
}

// limit caps the code lengths at maxHuffBits and restores a complete code: lengths
// beyond the cap are cut, the least frequent symbols' codes lengthened until the code
// fits, then the longest shortened while room is left.
func (h *huffEncoder) limit(leaves int) {
	const full = 1 << maxHuffBits
	kraft := 0
	for i := 0; i < leaves; i++ {
		s := h.nodes[i].sym
		h.nbits[s] = min(h.nbits[s], maxHuffBits)
		kraft += full >> h.nbits[s]
	}
	// nodes[:leaves] are by increasing frequency.
	for kraft > full {
		for i := 0; i < leaves && kraft > full; i++ {
			s := h.nodes[i].sym
			if h.nbits[s] < maxHuffBits {
				kraft -= full >> (h.nbits[s] + 1)
				h.nbits[s]++
			}
		}
	}
	for kraft < full {
		// The longest code's share is the smallest step and divides what is missing.
		best := -1
		for i := 0; i < leaves; i++ {
			s := h.nodes[i].sym
			if best < 0 || h.nbits[s] > h.nbits[h.nodes[best].sym] {
				best = i
			}
		}
		s := h.nodes[best].sym
		kraft += full >> h.nbits[s]
		h.nbits[s]--
	}
}

// assign gives the canonical codes (RFC 4.2.1.3, as the decoder fills its table): by
// increasing weight (decreasing length), then by symbol, each code the next in order.
func (h *huffEncoder) assign() {
	maxLen := uint8(0)
	for _, l := range h.nbits {
		maxLen = max(maxLen, l)
	}
	next := 0 // in units of the longest code
	for l := maxLen; l > 0; l-- {
		for s := range h.nbits {
			if h.nbits[s] == l {
				h.code[s] = uint16(next >> (maxLen - l))
				next += 1 << (maxLen - l)
			}
		}
	}
}

// describe writes the Huffman_Tree_Description: the weights (maxLen+1-length, 0 when
// absent) of every symbol up to the last present, which is implied. It fails when no
// form fits.
func (h *huffEncoder) describe() bool {
	maxLen, last := uint8(0), 0
	for s, l := range h.nbits {
		if l > 0 {
			maxLen, last = max(maxLen, l), s
		}
	}
	ws := h.ws[:0]
	for s := 0; s < last; s++ {
		w := uint8(0)
		if h.nbits[s] > 0 {
			w = maxLen + 1 - h.nbits[s]
		}
		ws = append(ws, w)
	}
	h.ws = ws
	h.desc = h.desc[:0]
	direct := len(ws) <= 128
	if len(ws) >= 2 {
		if d, ok := appendFSEWeights(h.desc, ws, &h.bw); ok && (!direct || len(d) <= 1+(len(ws)+1)/2) {
			h.desc = d
			return true
		}
	}
	if !direct {
		return false
	}
	h.desc = append(h.desc, byte(127+len(ws)))
	for i := 0; i < len(ws); i += 2 {
		b := ws[i] << 4
		if i+1 < len(ws) {
			b |= ws[i+1]
		}
		h.desc = append(h.desc, b)
	}
	return true
}

// appendFSEWeights appends the weights FSE-compressed (RFC 4.2.1.2): a header byte with
// the size, the table's normalized counts (4.1.1), then two interleaved states over one
// backward bitstream. It fails when the weights take a single value (a stream of 0-bit
// states has no end the decoder can find) or the result exceeds 127 bytes.
func appendFSEWeights(dst, ws []uint8, bw *bitWriter) ([]byte, bool) {
	var count [16]int
	for _, w := range ws {
		count[w]++
	}
	maxSym := 0
	distinct := 0
	for s, c := range count {
		if c > 0 {
			maxSym = s
			distinct++
		}
	}
	if distinct < 2 {
		return dst, false
	}
	norm := normalize(nil, count[:maxSym+1], len(ws), weightLog)
	at := len(dst)
	dst = append(dst, 0)
	dst = appendNormCounts(dst, norm, weightLog)
	t := newFSETable(norm, weightLog)
	// Weight k is on state k%2; the decoder's last update (of weight n-2) must need a bit
	// it does not find: that state reads at least one.
	n := len(ws)
	st := make([]uint16, n)
	st[n-1] = t.first[ws[n-1]]
	st[n-2] = t.first[ws[n-2]]
	bw.b, bw.acc, bw.n = dst, 0, 0
	for k := n - 3; k >= 0; k-- {
		st[k] = t.encode(bw, ws[k], st[k+2])
	}
	bw.add(uint64(st[1]), weightLog)
	bw.add(uint64(st[0]), weightLog)
	dst = bw.close()
	size := len(dst) - at - 1
	if size > 127 {
		return dst[:at], false
	}
	dst[at] = byte(size)
	return dst, true
}

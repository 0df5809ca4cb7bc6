package zstd

// Literals_Block_Type (RFC 3.1.1.3.1.1).
const (
	litRaw        = 0
	litRLE        = 1
	litCompressed = 2
)

// appendLiterals appends the Literals_Section of lits: Huffman coded when that is smaller
// (h may be nil: never), else one repeated byte (RLE) or the bytes themselves (Raw).
func appendLiterals(dst, lits []byte, h *huffEncoder) []byte {
	if h != nil && len(lits) >= minHuffLiterals {
		if out, ok := h.appendLiterals(dst, lits); ok {
			return out
		}
	}
	if len(lits) > 1 && allSame(lits) {
		return append(appendRawHeader(dst, litRLE, len(lits)), lits[0])
	}
	return append(appendRawHeader(dst, litRaw, len(lits)), lits...)
}

// appendRawHeader appends the header of a Raw or RLE literals section of n bytes: 1, 2 or
// 3 bytes (Size_Format 00, 01, 11).
func appendRawHeader(dst []byte, typ byte, n int) []byte {
	switch {
	case n < 32:
		return append(dst, typ|byte(n)<<3)
	case n < 4096:
		return append(dst, typ|1<<2|byte(n)<<4, byte(n>>4))
	default:
		return append(dst, typ|3<<2|byte(n)<<4, byte(n>>4), byte(n>>12))
	}
}

func allSame(b []byte) bool {
	for _, c := range b[1:] {
		if c != b[0] {
			return false
		}
	}
	return true
}

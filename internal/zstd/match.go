package zstd

import (
	"encoding/binary"
	"math/bits"
)

const (
	minMatch = 4
	hashMul  = 0x9E3779B185EBCA87 // odd, from the golden ratio
)

func le64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
func le32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// hash6 hashes the low 6 bytes of v into hashLog bits.
func hash6(v uint64, hashLog uint8) uint32 {
	return uint32((v << 16) * hashMul >> (64 - hashLog))
}

// parse splits hist[s:end] (the block, after the history) into sequences and literals:
// at each position the last repeat offset first (perf's records repeat at a fixed
// distance), then the hash table's candidate; a miss steps further the longer the run
// of literals (incompressible data goes fast).
func (e *Encoder) parse(s, end int) {
	if e.table == nil {
		e.table = make([]int32, 1<<e.hashLog)
	}
	h := e.hist
	e.seqs, e.lits = e.seqs[:0], e.lits[:0]
	anchor, ip := s, s
	limit := end - 8 // the hash reads 8 bytes
	for ip < limit {
		cur := le64(h, ip)
		hv := hash6(cur, e.hashLog)
		cand := int(e.table[hv] - e.origin)
		e.table[hv] = int32(ip) + e.origin
		if r := int(e.rep[0]); ip+1-r >= 0 && le32(h, ip+1-r) == uint32(cur>>8) {
			ml := minMatch + matchLen(h, ip+1-r+minMatch, ip+1+minMatch, end)
			e.emit(anchor, ip+1, r, ml)
			ip += 1 + ml
			ip, anchor = e.repeatNext(ip, limit, end)
			continue
		}
		if cand < 0 || ip-cand > WindowSize || le32(h, cand) != uint32(cur) {
			ip += 1 + (ip-anchor)>>6
			continue
		}
		if e.lazy && ip+1 < limit {
			// A longer match one byte on is worth a literal.
			next := le64(h, ip+1)
			hn := hash6(next, e.hashLog)
			c2 := int(e.table[hn] - e.origin)
			e.table[hn] = int32(ip+1) + e.origin
			if c2 >= 0 && ip+1-c2 <= WindowSize && le32(h, c2) == uint32(next) &&
				matchLen(h, c2, ip+1, end) > matchLen(h, cand, ip, end)+1 {
				ip, cand = ip+1, c2
			}
		}
		for ip > anchor && cand > 0 && h[ip-1] == h[cand-1] {
			ip, cand = ip-1, cand-1
		}
		ml := minMatch + matchLen(h, cand+minMatch, ip+minMatch, end)
		e.emit(anchor, ip, ip-cand, ml)
		ip += ml
		anchor = ip
		if ip-2 < limit {
			e.table[hash6(le64(h, ip-2), e.hashLog)] = int32(ip-2) + e.origin
		}
		ip, anchor = e.repeatNext(ip, limit, end)
	}
	e.lits = append(e.lits, h[anchor:end]...)
}

// repeatNext takes, right after a match that ends at ip, the data that the previous
// offset (the second repeat offset) repeats: a sequence without literals whose offset
// costs no bits (perf's records interleave two distances: the previous record of the
// same kind, and the field seen elsewhere). It returns where matching goes on.
func (e *Encoder) repeatNext(ip, limit, end int) (int, int) {
	h := e.hist
	for ip < limit {
		r := int(e.rep[1])
		if ip-r < 0 || le32(h, ip-r) != le32(h, ip) {
			break
		}
		ml := minMatch + matchLen(h, ip-r+minMatch, ip+minMatch, end)
		e.emit(ip, ip, r, ml)
		ip += ml
	}
	return ip, ip
}

// matchLen counts the bytes from a that equal those from b, b's run ending at end.
func matchLen(h []byte, a, b, end int) int {
	n := 0
	for b+n+8 <= end {
		if x := le64(h, a+n) ^ le64(h, b+n); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for b+n < end && h[a+n] == h[b+n] {
		n++
	}
	return n
}

// emit adds the sequence of the literals hist[anchor:ip] and a match of ml bytes at
// offset off.
func (e *Encoder) emit(anchor, ip, off, ml int) {
	ll := uint32(ip - anchor)
	e.lits = append(e.lits, e.hist[anchor:ip]...)
	e.seqs = append(e.seqs, seq{ll: ll, ml: uint32(ml), offBase: e.offBase(uint32(off), ll)})
}

// offBase codes off as the decoder will read it and updates the repeat offsets as the
// decoder will (RFC 3.1.2.5): a repeat offset is coded by its place among them, where
// a sequence without literals shifts the places by one.
func (e *Encoder) offBase(off, ll uint32) uint32 {
	r := &e.rep
	if ll > 0 {
		switch off {
		case r[0]:
			return 1
		case r[1]:
			r[0], r[1] = off, r[0]
			return 2
		case r[2]:
			r[0], r[1], r[2] = off, r[0], r[1]
			return 3
		}
	} else {
		switch off {
		case r[1]:
			r[0], r[1] = off, r[0]
			return 1
		case r[2]:
			r[0], r[1], r[2] = off, r[0], r[1]
			return 2
		case r[0] - 1:
			r[0], r[1], r[2] = off, r[0], r[1]
			return 3
		}
	}
	r[0], r[1], r[2] = off, r[0], r[1]
	return off + 3
}

package zstd

import (
	"encoding/binary"
	"math/bits"
)

// XXH64 (seed 0): the frame's Content_Checksum is its low 32 bits (RFC 8878 3.1.1).
const (
	xxP1 uint64 = 11400714785074694791
	xxP2 uint64 = 14029467366897019727
	xxP3 uint64 = 1609587929392839161
	xxP4 uint64 = 9650029242287828579
	xxP5 uint64 = 2870177450012600261
)

// xxh64 hashes a stream written in pieces.
type xxh64 struct {
	v     [4]uint64
	buf   [32]byte
	nbuf  int
	total uint64
}

func (x *xxh64) reset() {
	p1, p2 := xxP1, xxP2 // wrapping sums, which constants cannot do
	*x = xxh64{v: [4]uint64{p1 + p2, p2, 0, -p1}}
}

func xxRound(acc, in uint64) uint64 {
	return bits.RotateLeft64(acc+in*xxP2, 31) * xxP1
}

func (x *xxh64) write(b []byte) {
	x.total += uint64(len(b))
	if x.nbuf > 0 {
		n := copy(x.buf[x.nbuf:], b)
		x.nbuf += n
		b = b[n:]
		if x.nbuf < 32 {
			return
		}
		x.stripes(x.buf[:])
		x.nbuf = 0
	}
	n := len(b) &^ 31
	x.stripes(b[:n])
	x.nbuf = copy(x.buf[:], b[n:])
}

func (x *xxh64) stripes(b []byte) {
	for ; len(b) >= 32; b = b[32:] {
		for i := range x.v {
			x.v[i] = xxRound(x.v[i], binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
}

func (x *xxh64) sum() uint64 {
	var h uint64
	if x.total >= 32 {
		v := x.v
		h = bits.RotateLeft64(v[0], 1) + bits.RotateLeft64(v[1], 7) + bits.RotateLeft64(v[2], 12) + bits.RotateLeft64(v[3], 18)
		for _, vi := range v {
			h = (h^xxRound(0, vi))*xxP1 + xxP4
		}
	} else {
		h = xxP5
	}
	h += x.total
	b := x.buf[:x.nbuf]
	for ; len(b) >= 8; b = b[8:] {
		h = bits.RotateLeft64(h^xxRound(0, binary.LittleEndian.Uint64(b)), 27)*xxP1 + xxP4
	}
	if len(b) >= 4 {
		h = bits.RotateLeft64(h^uint64(binary.LittleEndian.Uint32(b))*xxP1, 23)*xxP2 + xxP3
		b = b[4:]
	}
	for _, c := range b {
		h = bits.RotateLeft64(h^uint64(c)*xxP5, 11) * xxP1
	}
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	h ^= h >> 32
	return h
}

package zstd

import "math/bits"

// The predefined distributions of the sequence codes (RFC 8878 3.1.1.3.2.2), in the order
// of the block's tables: literal lengths, offsets, match lengths. -1 is a probability
// "less than 1": one state at the top of the table.
var (
	llNorm = [36]int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
		2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}
	ofNorm = [29]int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		-1, -1, -1, -1, -1}
	mlNorm = [53]int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1,
		-1, -1}
)

// fseTable encodes one kind of symbol with a normalized distribution. States are the
// decoder's (RFC 4.1.1): state s decodes symbol sym[s], then reads nbits[s] bits and adds
// them to base[s] to find the next state. A symbol of count c has c states, which the
// decoder numbers c to 2c-1 in table order; the one numbered k reads log-highbit(k) bits,
// and the ranges [base, base+2^bits) of a symbol's states split the table. Encoding runs
// backwards: a symbol is encoded with its state whose range holds the state that follows,
// and those bits are written.
type fseTable struct {
	log   uint8
	norm  []int16
	sym   []uint8
	nbits []uint8
	base  []uint16
	// states lists each symbol's states in table order, from at[x]; a symbol's state
	// numbered k is states[at[x]+k-count(x)].
	states []uint16
	at     []uint16
	// high[x] is the bits its lowest-numbered state reads; the states numbered from
	// 2^(highbit(count)+1) on read one less: those the next state (plus the table size) is
	// below split[x] for.
	high  []uint8
	split []uint32
	first []uint16 // each symbol's state that reads the most bits, to start from
	next  []int
}

func newFSETable(norm []int16, log uint8) *fseTable {
	t := &fseTable{}
	t.build(norm, log)
	return t
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// count is the number of states of symbol s.
func (t *fseTable) count(s int) int { return max(int(t.norm[s]), 1) }

// build makes the table of a normalized distribution, spread as the RFC spreads it.
func (t *fseTable) build(norm []int16, log uint8) {
	size := 1 << log
	t.log, t.norm = log, norm
	t.sym, t.nbits, t.base = resize(t.sym, size), resize(t.nbits, size), resize(t.base, size)
	n := len(norm)
	t.states, t.at, t.high, t.split = resize(t.states, size), resize(t.at, n), resize(t.high, n), resize(t.split, n)
	t.first, t.next = resize(t.first, n), resize(t.next, n)
	high := size - 1
	at := 0
	for s, p := range norm {
		t.at[s] = uint16(at)
		if p == -1 {
			t.sym[high] = uint8(s)
			high--
		}
		if p != 0 {
			c := t.count(s)
			t.next[s] = c
			at += c
			hb := bits.Len(uint(c)) - 1
			t.high[s] = log - uint8(hb)
			t.split[s] = uint32(c) << t.high[s]
		}
	}
	pos, step, mask := 0, size>>1+size>>3+3, size-1
	for s, p := range norm {
		for i := 0; i < int(p); i++ {
			t.sym[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	for st := 0; st < size; st++ {
		s := int(t.sym[st])
		k := t.next[s]
		t.next[s]++
		c := t.count(s)
		if k == c {
			t.first[s] = uint16(st) // the lowest number: the most bits
		}
		nb := int(log) - (bits.Len(uint(k)) - 1)
		t.nbits[st] = uint8(nb)
		t.base[st] = uint16(k<<nb - size)
		t.states[int(t.at[s])+k-c] = uint16(st)
	}
}

// encode writes the transition from x's state to next and returns that state.
func (t *fseTable) encode(bw *bitWriter, x uint8, next uint16) uint16 {
	v := uint32(next) + 1<<t.log
	nb := t.high[x]
	if v < t.split[x] {
		nb--
	}
	bw.add(uint64(v), nb)
	k := int(v >> nb)
	return t.states[int(t.at[x])+k-t.count(int(x))]
}

// bitWriter writes the forward bitstream that a decoder reads backwards (RFC 4.1): values
// from the lowest bit up, closed by a 1 bit.
type bitWriter struct {
	b   []byte
	acc uint64
	n   uint
}

// add writes the low n bits of v (n <= 32).
func (w *bitWriter) add(v uint64, n uint8) {
	w.acc |= (v & (1<<n - 1)) << w.n
	w.n += uint(n)
	if w.n >= 32 {
		w.b = append(w.b, byte(w.acc), byte(w.acc>>8), byte(w.acc>>16), byte(w.acc>>24))
		w.acc >>= 32
		w.n -= 32
	}
}

// close writes the end mark and the last partial byte.
func (w *bitWriter) close() []byte {
	w.add(1, 1)
	for w.n > 0 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.n = max(w.n, 8) - 8
	}
	return w.b
}

// normalize scales counts (summing to total) to 1<<log, every present symbol at least 1,
// into norm.
func normalize(norm []int16, counts []int, total int, log uint8) []int16 {
	size := 1 << log
	norm = resize(norm, len(counts))
	sum, big := 0, 0
	for s, c := range counts {
		norm[s] = 0
		if c == 0 {
			continue
		}
		p := max(1, (c*size+total/2)/total)
		norm[s] = int16(p)
		sum += p
		if c > counts[big] {
			big = s
		}
	}
	// The most frequent symbol absorbs the rounding; if it cannot, others give way.
	for sum != size {
		if sum < size || int(norm[big])-(sum-size) >= max(1, int(norm[big])/2) {
			norm[big] -= int16(sum - size)
			break
		}
		for s := range norm {
			if sum > size && norm[s] > 1 {
				norm[s]--
				sum--
			}
		}
	}
	return norm
}

// appendNormCounts appends an FSE table description (RFC 4.1.1): the accuracy log, then
// each symbol's count+1 in a variable number of bits, a run of zero counts as 2-bit
// repeat flags, forward from the lowest bit.
func appendNormCounts(dst []byte, norm []int16, log uint8) []byte {
	var acc uint64
	var n uint
	put := func(v uint64, k uint) {
		acc |= v << n
		n += k
		for n >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	put(uint64(log-5), 4)
	remaining := 1<<log + 1
	threshold := 1 << log
	nb := uint(log) + 1
	for s := 0; s < len(norm) && remaining > 1; s++ {
		c := int(norm[s]) + 1
		max := 2*threshold - 1 - remaining
		if c < max {
			put(uint64(c), nb-1)
		} else if c < threshold {
			put(uint64(c), nb)
		} else {
			put(uint64(c+max), nb)
		}
		if norm[s] < 0 {
			remaining--
		} else {
			remaining -= int(norm[s])
		}
		for remaining < threshold {
			nb--
			threshold >>= 1
		}
		if norm[s] == 0 {
			z := 0
			for s+1+z < len(norm) && norm[s+1+z] == 0 {
				z++
			}
			s += z
			for ; z >= 3; z -= 3 {
				put(3, 2)
			}
			put(uint64(z), 2)
		}
	}
	if n > 0 {
		dst = append(dst, byte(acc))
	}
	return dst
}

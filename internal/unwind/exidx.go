package unwind

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// exidx is a 32-bit ARM object's exception index (.ARM.exidx) and table (.ARM.extab): the
// ARM EHABI's unwinding (ARM IHI 0038, "Exception handling ABI for the Arm architecture",
// sections 6-10). Each index entry is two words: the function's address (prel31) and
// either EXIDX_CANTUNWIND, the unwinding instructions themselves (bit 31 set: personality
// routine 0's compact model) or the prel31 address of its table entry.
type exidx struct {
	idx     []byte
	idxAddr uint64
	tab     []byte
	tabAddr uint64
}

const exidxCantUnwind = 1

var (
	errCantUnwind = errors.New("EXIDX_CANTUNWIND")
	errEHABI      = errors.New("corrupt ARM exception table")
)

// prel31 is a 31-bit signed offset from where it is stored.
func prel31(w uint32, at uint64) uint64 {
	off := int64(int32(w<<1) >> 1)
	return uint64(int64(at)+off) & 0xffffffff
}

func (x *exidx) n() int { return len(x.idx) / 8 }

func (x *exidx) fn(i int) uint64 {
	return prel31(binary.LittleEndian.Uint32(x.idx[8*i:]), x.idxAddr+uint64(8*i))
}

// opcodes returns the unwinding instructions of the function holding pc (an address of
// the object's own space), in the order they run.
func (x *exidx) opcodes(pc uint64) ([]byte, error) {
	n := x.n()
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.fn(m) <= pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil, errNoFDE
	}
	i := lo - 1
	w := binary.LittleEndian.Uint32(x.idx[8*i+4:])
	switch {
	case w == exidxCantUnwind:
		return nil, errCantUnwind
	case w&(1<<31) != 0:
		return compact(w, nil)
	}
	at := prel31(w, x.idxAddr+uint64(8*i+4))
	if at < x.tabAddr || at+4 > x.tabAddr+uint64(len(x.tab)) {
		return nil, fmt.Errorf("%w: a table entry outside .ARM.extab", errEHABI)
	}
	off := int(at - x.tabAddr)
	w = binary.LittleEndian.Uint32(x.tab[off:])
	rest := x.tab[off+4:]
	if w&(1<<31) != 0 {
		return compact(w, rest)
	}
	// The generic model: a personality routine (GCC's __gxx_personality_v0 and the like),
	// then its data, whose first word starts with the count of further words and three
	// bytes of instructions, as personality routines 1 and 2 lay them out.
	if len(rest) < 4 {
		return nil, errEHABI
	}
	w = binary.LittleEndian.Uint32(rest)
	return words(w>>24, []byte{byte(w >> 16), byte(w >> 8), byte(w)}, rest[4:])
}

// compact decodes an entry of personality routine 0, 1 or 2 (bits 27-24 of w).
func compact(w uint32, rest []byte) ([]byte, error) {
	if w>>28 != 8 {
		return nil, fmt.Errorf("%w: entry %#x", errEHABI, w)
	}
	switch (w >> 24) & 0xf {
	case 0: // Su16: three bytes of instructions
		return []byte{byte(w >> 16), byte(w >> 8), byte(w)}, nil
	case 1, 2: // Lu16, Lu32: a count of further words, two bytes, the words
		return words((w>>16)&0xff, []byte{byte(w >> 8), byte(w)}, rest)
	}
	return nil, fmt.Errorf("%w: personality routine %d", errEHABI, (w>>24)&0xf)
}

// words appends n further words of instructions (most significant byte first) to ops.
func words(n uint32, ops []byte, rest []byte) ([]byte, error) {
	if uint64(n)*4 > uint64(len(rest)) {
		return nil, fmt.Errorf("%w: %d words of instructions past the table's end", errEHABI, n)
	}
	for i := uint32(0); i < n; i++ {
		w := binary.LittleEndian.Uint32(rest[4*i:])
		ops = append(ops, byte(w>>24), byte(w>>16), byte(w>>8), byte(w))
	}
	return ops, nil
}

// step runs the instructions ops on the frame in regs (r0-r15), reading the stack with
// mem: the caller's frame. Its pc is the popped r15 or, when none was popped, lr.
func ehabiStep(ops []byte, regs *Regs, mem func(addr uint64, size int) (uint64, bool)) (Regs, error) {
	out := *regs
	vsp, ok := regs.Get(13)
	if !ok {
		return out, fmt.Errorf("the registers lack the stack pointer")
	}
	popped15, spPopped := false, false
	pop := func(reg int) error {
		v, ok := mem(vsp, 4)
		if !ok {
			return errStackRead
		}
		vsp += 4
		out.Set(reg, v)
		if reg == 15 {
			popped15 = true
		}
		if reg == 13 {
			spPopped = true
		}
		return nil
	}
	popMask := func(mask uint32, first int) error {
		for i := 0; mask != 0; i, mask = i+1, mask>>1 {
			if mask&1 != 0 {
				if err := pop(first + i); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		next := func() (byte, error) {
			i++
			if i >= len(ops) {
				return 0, errEHABI
			}
			return ops[i], nil
		}
		var err error
		switch {
		case op&0xc0 == 0x00: // vsp += (x << 2) + 4
			vsp += uint64(op&0x3f)<<2 + 4
		case op&0xc0 == 0x40: // vsp -= (x << 2) + 4
			vsp -= uint64(op&0x3f)<<2 + 4
		case op&0xf0 == 0x80: // pop under mask {r15-r12}{r11-r4}
			b, e := next()
			if e != nil {
				return out, e
			}
			mask := uint32(op&0x0f)<<8 | uint32(b)
			if mask == 0 {
				return out, errCantUnwind // "refuse to unwind"
			}
			err = popMask(mask, 4)
		case op&0xf0 == 0x90: // vsp = r[n]
			n := int(op & 0x0f)
			if n == 13 || n == 15 {
				return out, errEHABI
			}
			v, ok := out.Get(n)
			if !ok {
				return out, fmt.Errorf("the stack pointer comes from register %d, not known", n)
			}
			vsp = v
		case op&0xf8 == 0xa0: // pop r4-r[4+n]
			err = popMask(1<<(op&7+1)-1, 4)
		case op&0xf8 == 0xa8: // pop r4-r[4+n], r14
			if err = popMask(1<<(op&7+1)-1, 4); err == nil {
				err = pop(14)
			}
		case op == 0xb0: // finish
			i = len(ops)
		case op == 0xb1: // pop under mask {r3-r0}
			b, e := next()
			if e != nil {
				return out, e
			}
			if b == 0 || b&0xf0 != 0 {
				return out, errEHABI
			}
			err = popMask(uint32(b), 0)
		case op == 0xb2: // vsp += 0x204 + (uleb128 << 2)
			var v uint64
			for shift := 0; ; shift += 7 {
				b, e := next()
				if e != nil || shift > 28 {
					return out, errEHABI
				}
				v |= uint64(b&0x7f) << shift
				if b&0x80 == 0 {
					break
				}
			}
			vsp += 0x204 + v<<2
		case op == 0xb3, op == 0xc8, op == 0xc9: // VFP d[s]..d[s+c] (FSTMFDX: one more word)
			b, e := next()
			if e != nil {
				return out, e
			}
			vsp += 8 * (uint64(b&0x0f) + 1)
			if op == 0xb3 {
				vsp += 4
			}
		case op&0xf8 == 0xb8: // VFP d8-d[8+n], FSTMFDX
			vsp += 8*(uint64(op&7)+1) + 4
		case op&0xf8 == 0xd0: // VFP d8-d[8+n], FSTMFDD
			vsp += 8 * (uint64(op&7) + 1)
		case op >= 0xc0 && op <= 0xc5: // iWMMXt wR10-wR[10+n]
			vsp += 8 * (uint64(op&7) + 1)
		case op == 0xc6: // iWMMXt wR[s]-wR[s+c]
			b, e := next()
			if e != nil {
				return out, e
			}
			vsp += 8 * (uint64(b&0x0f) + 1)
		case op == 0xc7: // iWMMXt wCGR under mask
			b, e := next()
			if e != nil || b == 0 || b&0xf0 != 0 {
				return out, errEHABI
			}
			for m := b; m != 0; m >>= 1 {
				if m&1 != 0 {
					vsp += 4
				}
			}
		default:
			return out, fmt.Errorf("%w: instruction %#x (spare)", errEHABI, op)
		}
		if err != nil {
			return out, err
		}
		vsp &= 0xffffffff
	}
	if !spPopped {
		out.Set(13, vsp)
	}
	if !popped15 {
		lr, ok := out.Get(14)
		if !ok {
			return out, fmt.Errorf("the return address (lr) is not known")
		}
		out.Set(15, lr)
	}
	return out, nil
}

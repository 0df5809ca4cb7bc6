package unwind

import (
	"errors"
	"fmt"
)

// Bounds of an expression's evaluation: operations executed (branches may loop) and the
// stack's depth.
const (
	maxExprSteps = 1000
	maxExprStack = 64
)

var errExpr = errors.New("a DWARF expression pmc cannot evaluate")

// eval evaluates a DWARF expression of call frame information (DWARF 5 section 2.5) with
// push on the stack first, registers from regs and memory from mem; the result is the top
// of the stack. Operations that name objects or types (DW_OP_addr's relocations aside) are
// not part of CFI and are refused.
func eval(expr []byte, push []uint64, regs *Regs, mem func(addr uint64, size int) (uint64, bool), word int) (uint64, error) {
	st := make([]uint64, 0, 8)
	st = append(st, push...)
	r := &reader{b: expr}
	mask := ^uint64(0)
	if word == 4 {
		mask = 0xffffffff
	}
	pop := func() (uint64, bool) {
		if len(st) == 0 {
			return 0, false
		}
		v := st[len(st)-1]
		st = st[:len(st)-1]
		return v, true
	}
	for steps := 0; r.pos < len(r.b); steps++ {
		if steps >= maxExprSteps || len(st) > maxExprStack {
			return 0, errExpr
		}
		op := r.u8()
		switch {
		case op >= 0x30 && op <= 0x4f: // DW_OP_lit0..31
			st = append(st, uint64(op-0x30))
			continue
		case op >= 0x70 && op <= 0x8f: // DW_OP_breg0..31
			v, ok := regs.Get(int(op - 0x70))
			if !ok {
				return 0, fmt.Errorf("an expression reads register %d, not known", op-0x70)
			}
			st = append(st, (v+uint64(r.sleb()))&mask)
			continue
		}
		switch op {
		case 0x03: // addr
			st = append(st, r.word(word))
		case 0x06, 0x94: // deref, deref_size
			size := word
			if op == 0x94 {
				size = int(r.u8())
			}
			a, ok := pop()
			if !ok || (size != 1 && size != 2 && size != 4 && size != 8) {
				return 0, errExpr
			}
			v, ok := mem(a, size)
			if !ok {
				return 0, errStackRead
			}
			st = append(st, v)
		case 0x08:
			st = append(st, uint64(r.u8()))
		case 0x09:
			st = append(st, uint64(int64(int8(r.u8())))&mask)
		case 0x0a:
			st = append(st, uint64(r.u16()))
		case 0x0b:
			st = append(st, uint64(int64(int16(r.u16())))&mask)
		case 0x0c:
			st = append(st, uint64(r.u32()))
		case 0x0d:
			st = append(st, uint64(int64(int32(r.u32())))&mask)
		case 0x0e, 0x0f:
			st = append(st, r.u64()&mask)
		case 0x10:
			st = append(st, r.uleb()&mask)
		case 0x11:
			st = append(st, uint64(r.sleb())&mask)
		case 0x12: // dup
			if len(st) == 0 {
				return 0, errExpr
			}
			st = append(st, st[len(st)-1])
		case 0x13: // drop
			if _, ok := pop(); !ok {
				return 0, errExpr
			}
		case 0x14: // over
			if len(st) < 2 {
				return 0, errExpr
			}
			st = append(st, st[len(st)-2])
		case 0x15: // pick
			i := int(r.u8())
			if i >= len(st) {
				return 0, errExpr
			}
			st = append(st, st[len(st)-1-i])
		case 0x16: // swap
			if len(st) < 2 {
				return 0, errExpr
			}
			st[len(st)-1], st[len(st)-2] = st[len(st)-2], st[len(st)-1]
		case 0x17: // rot
			if len(st) < 3 {
				return 0, errExpr
			}
			n := len(st)
			st[n-1], st[n-2], st[n-3] = st[n-2], st[n-3], st[n-1]
		case 0x19, 0x1f, 0x20: // abs, neg, not
			a, ok := pop()
			if !ok {
				return 0, errExpr
			}
			switch op {
			case 0x19:
				if int64(a) < 0 {
					a = -a
				}
			case 0x1f:
				a = -a
			default:
				a = ^a
			}
			st = append(st, a&mask)
		case 0x23: // plus_uconst
			a, ok := pop()
			if !ok {
				return 0, errExpr
			}
			st = append(st, (a+r.uleb())&mask)
		case 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x21, 0x22, 0x24, 0x25, 0x26, 0x27,
			0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e:
			b, ok1 := pop()
			a, ok2 := pop()
			if !ok1 || !ok2 {
				return 0, errExpr
			}
			v, err := binop(op, a, b)
			if err != nil {
				return 0, err
			}
			st = append(st, v&mask)
		case 0x28, 0x2f: // bra, skip
			off := int(int16(r.u16()))
			if op == 0x28 {
				c, ok := pop()
				if !ok {
					return 0, errExpr
				}
				if c == 0 {
					continue
				}
			}
			to := r.pos + off
			if to < 0 || to > len(r.b) {
				return 0, errExpr
			}
			r.pos = to
		case 0x92: // bregx
			n := r.uleb()
			v, ok := regs.Get(int(min(n, 1<<16)))
			if !ok {
				return 0, fmt.Errorf("an expression reads register %d, not known", n)
			}
			st = append(st, (v+uint64(r.sleb()))&mask)
		case 0x96: // nop
		default:
			return 0, fmt.Errorf("%w (operation %#x)", errExpr, op)
		}
		if r.err != nil {
			return 0, errExpr
		}
	}
	if r.err != nil || len(st) == 0 {
		return 0, errExpr
	}
	return st[len(st)-1], nil
}

func binop(op uint8, a, b uint64) (uint64, error) {
	bool64 := func(c bool) uint64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case 0x1a:
		return a & b, nil
	case 0x1b: // div (signed)
		if b == 0 || int64(a) == -1<<63 && int64(b) == -1 {
			return 0, errExpr
		}
		return uint64(int64(a) / int64(b)), nil
	case 0x1c:
		return a - b, nil
	case 0x1d:
		if b == 0 {
			return 0, errExpr
		}
		return a % b, nil
	case 0x1e:
		return a * b, nil
	case 0x21:
		return a | b, nil
	case 0x22:
		return a + b, nil
	case 0x24:
		if b >= 64 {
			return 0, nil
		}
		return a << b, nil
	case 0x25:
		if b >= 64 {
			return 0, nil
		}
		return a >> b, nil
	case 0x26:
		if b >= 64 {
			b = 63
		}
		return uint64(int64(a) >> b), nil
	case 0x27:
		return a ^ b, nil
	case 0x29:
		return bool64(a == b), nil
	case 0x2a:
		return bool64(int64(a) >= int64(b)), nil
	case 0x2b:
		return bool64(int64(a) > int64(b)), nil
	case 0x2c:
		return bool64(int64(a) <= int64(b)), nil
	case 0x2d:
		return bool64(int64(a) < int64(b)), nil
	case 0x2e:
		return bool64(a != b), nil
	}
	return 0, errExpr
}

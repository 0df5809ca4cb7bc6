package disasm

// x86Len is the length of the x86-64 instruction at the start of b, from its encoding alone
// (prefixes, REX, VEX/EVEX, opcode maps, ModRM, SIB, displacement, immediate), for what
// x86asm cannot decode. It returns 0 when b is truncated or not an instruction.
func x86Len(b []byte) int {
	i, opsize16, rexW := 0, false, false
	for ; i < len(b) && i < 14; i++ {
		switch c := b[i]; {
		case c == 0x66:
			opsize16 = true
		case c == 0x67, c == 0xf0, c == 0xf2, c == 0xf3, c == 0x2e, c == 0x36, c == 0x3e,
			c == 0x26, c == 0x64, c == 0x65:
		default:
			goto prefixesDone
		}
	}
prefixesDone:
	if i < len(b) && b[i]&0xf0 == 0x40 { // REX
		rexW = b[i]&8 != 0
		i++
	}
	if i >= len(b) {
		return 0
	}
	immz := 4
	if opsize16 && !rexW {
		immz = 2
	}
	op := b[i]
	i++
	var n int
	switch op {
	case 0xc4, 0xc5, 0x62: // VEX3, VEX2, EVEX
		n = x86VexLen(op, b[i:])
	case 0x0f:
		n = x86Map0F(b[i:], immz)
	default:
		n = x86OneByte(op, b[i:], immz, rexW)
	}
	if n < 0 || i+n > 15 || i+n > len(b) {
		return 0
	}
	return i + n
}

// x86OneByte is the length after the opcode byte op of the one-byte map (-1: invalid).
func x86OneByte(op byte, b []byte, immz int, rexW bool) int {
	lo := op & 7
	switch {
	case op < 0x40 && op&0x07 <= 3: // ALU r/m forms
		return modrmLen(b, 0)
	case op < 0x40 && lo == 4:
		return 1
	case op < 0x40 && lo == 5:
		return immz
	case op < 0x40:
		return -1 // 06/07/0e/0f(handled)/27/2f/37/3f and the segment prefixes (consumed earlier)
	case op >= 0x50 && op <= 0x5f, op >= 0x6c && op <= 0x6f, op >= 0x90 && op <= 0x99,
		op >= 0x9b && op <= 0x9f, op >= 0xa4 && op <= 0xa7, op >= 0xaa && op <= 0xaf,
		op == 0xc3, op == 0xc9, op == 0xcb, op == 0xcc, op == 0xcf, op == 0xd7,
		op >= 0xec && op <= 0xef, op == 0xf1, op == 0xf4, op == 0xf5, op >= 0xf8 && op <= 0xfd:
		return 0
	case op == 0x63, op >= 0x84 && op <= 0x8f, op >= 0xd0 && op <= 0xd3, op >= 0xd8 && op <= 0xdf,
		op == 0xfe, op == 0xff:
		return modrmLen(b, 0)
	case op == 0x68:
		return immz
	case op == 0x69, op == 0x81, op == 0xc7:
		return modrmLen(b, immz)
	case op == 0x6a, op >= 0x70 && op <= 0x7f, op == 0xa8, op >= 0xb0 && op <= 0xb7, op == 0xcd,
		op >= 0xe0 && op <= 0xe7, op == 0xeb:
		return 1
	case op == 0x6b, op == 0x80, op == 0x83, op == 0xc0, op == 0xc1, op == 0xc6:
		return modrmLen(b, 1)
	case op >= 0xa0 && op <= 0xa3:
		return 8
	case op == 0xa9:
		return immz
	case op >= 0xb8 && op <= 0xbf:
		if rexW {
			return 8
		}
		return immz
	case op == 0xc2, op == 0xca:
		return 2
	case op == 0xc8:
		return 3
	case op == 0xe8, op == 0xe9:
		return 4
	case op == 0xf6, op == 0xf7:
		if len(b) == 0 {
			return -1
		}
		imm := 0
		if (b[0]>>3)&7 <= 1 { // test r/m, imm
			imm = 1
			if op == 0xf7 {
				imm = immz
			}
		}
		return modrmLen(b, imm)
	}
	return -1
}

// x86Map0F is the length after 0f of a two- or three-byte opcode.
func x86Map0F(b []byte, immz int) int {
	if len(b) == 0 {
		return -1
	}
	op := b[0]
	switch {
	case op == 0x38:
		if len(b) < 2 {
			return -1
		}
		return 2 + modrmLen(b[2:], 0)
	case op == 0x3a:
		if len(b) < 2 {
			return -1
		}
		return 2 + modrmLen(b[2:], 1)
	case op >= 0x80 && op <= 0x8f: // jcc rel32
		return 1 + 4
	case op == 0x05, op == 0x06, op == 0x07, op == 0x08, op == 0x09, op == 0x0b, op == 0x0e,
		op >= 0x30 && op <= 0x37, op == 0x77, op == 0xa0, op == 0xa1, op == 0xa2, op == 0xa8,
		op == 0xa9, op == 0xaa, op >= 0xc8 && op <= 0xcf:
		return 1
	case op >= 0x70 && op <= 0x73, op == 0xa4, op == 0xac, op == 0xba, op == 0xc2, op == 0xc4,
		op == 0xc5, op == 0xc6, op == 0x0f:
		return 1 + modrmLen(b[1:], 1)
	}
	return 1 + modrmLen(b[1:], 0)
}

// x86VexLen is the length after a VEX (c4, c5) or EVEX (62) escape byte.
func x86VexLen(esc byte, b []byte) int {
	var payload, mp int
	switch esc {
	case 0xc5:
		payload, mp = 1, 1
	case 0xc4:
		if len(b) < 1 {
			return -1
		}
		payload, mp = 2, int(b[0]&0x1f)
	case 0x62:
		if len(b) < 1 {
			return -1
		}
		payload, mp = 3, int(b[0]&0x07)
	}
	if len(b) < payload+1 {
		return -1
	}
	op := b[payload]
	rest := b[payload+1:]
	if mp == 1 && op == 0x77 && esc != 0x62 { // vzeroupper, vzeroall: no ModRM
		return payload + 1
	}
	imm := 0
	switch mp {
	case 1:
		if op >= 0x70 && op <= 0x73 || op == 0xc2 || op == 0xc4 || op == 0xc5 || op == 0xc6 {
			imm = 1
		}
	case 2, 5, 6:
	case 3:
		imm = 1
	default:
		return -1
	}
	m := modrmLen(rest, imm)
	if m < 0 {
		return -1
	}
	return payload + 1 + m
}

// modrmLen is the length of a ModRM byte at b[0] with its SIB and displacement, plus imm
// bytes of immediate (-1 when b is empty).
func modrmLen(b []byte, imm int) int {
	if len(b) == 0 {
		return -1
	}
	m := b[0]
	mod, rm := m>>6, m&7
	n := 1
	if mod != 3 && rm == 4 {
		if len(b) < 2 {
			return -1
		}
		n++
		if mod == 0 && b[1]&7 == 5 {
			n += 4
		}
	}
	switch {
	case mod == 0 && rm == 5:
		n += 4
	case mod == 1:
		n++
	case mod == 2:
		n += 4
	}
	return n + imm
}

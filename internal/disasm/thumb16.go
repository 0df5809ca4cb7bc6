package disasm

import "fmt"

// thumb16 decodes a 16-bit Thumb instruction (not IT, decoded by the caller).
func thumb16(hw uint16, c *thumbCtx) (Inst, bool) {
	h := int(hw)
	r0, r3, r6, r8 := h&7, h>>3&7, h>>6&7, h>>8&7
	switch {
	case h>>11 <= 2: // LSL, LSR, ASR (immediate); LSL #0 is MOVS
		imm5 := h >> 6 & 31
		op := [3]string{"lsl", "lsr", "asr"}[h>>11]
		if h>>11 == 0 && imm5 == 0 {
			return c.mk("mov"+c.s(), "", fmt.Sprintf("%s, %s", reg(r0), reg(r3))), true
		}
		if imm5 == 0 {
			imm5 = 32
		}
		return c.mk(op+c.s(), "", fmt.Sprintf("%s, %s, %s", reg(r0), reg(r3), imm(imm5))), true
	case h>>11 == 3: // ADD/SUB register or 3-bit immediate
		op := "add"
		if h>>9&1 != 0 {
			op = "sub"
		}
		if h>>10&1 != 0 {
			return c.mk(op+c.s(), "", fmt.Sprintf("%s, %s, %s", reg(r0), reg(r3), imm(r6))), true
		}
		return c.mk(op+c.s(), "", fmt.Sprintf("%s, %s, %s", reg(r0), reg(r3), reg(r6))), true
	case h>>13 == 1: // MOV, CMP, ADD, SUB 8-bit immediate
		i8 := h & 0xff
		switch h >> 11 & 3 {
		case 0:
			return c.mk("mov"+c.s(), "", fmt.Sprintf("%s, %s", reg(r8), imm(i8))), true
		case 1:
			return c.mk("cmp", "", fmt.Sprintf("%s, %s", reg(r8), imm(i8))), true
		case 2:
			return c.mk("add"+c.s(), "", fmt.Sprintf("%s, %s", reg(r8), imm(i8))), true
		}
		return c.mk("sub"+c.s(), "", fmt.Sprintf("%s, %s", reg(r8), imm(i8))), true
	case h>>10 == 0x10: // data processing, two low registers
		op := [16]string{"and", "eor", "lsl", "lsr", "asr", "adc", "sbc", "ror", "tst", "neg",
			"cmp", "cmn", "orr", "mul", "bic", "mvn"}[h>>6&15]
		switch op {
		case "tst", "cmp", "cmn":
			return c.mk(op, "", fmt.Sprintf("%s, %s", reg(r0), reg(r3))), true
		case "mul":
			return c.mk(op+c.s(), "", fmt.Sprintf("%s, %s, %s", reg(r0), reg(r3), reg(r0))), true
		case "neg":
			return c.mk(op+c.s(), "", fmt.Sprintf("%s, %s", reg(r0), reg(r3))), true
		}
		return c.mk(op+c.s(), "", fmt.Sprintf("%s, %s", reg(r0), reg(r3))), true
	case h>>10 == 0x11: // special data processing, BX, BLX
		rd := h&7 | h>>4&8
		rm := h >> 3 & 15
		switch h >> 8 & 3 {
		case 0:
			return c.mk("add", "", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		case 1:
			return c.mk("cmp", "", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		case 2:
			return c.mk("mov", "", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		}
		if h>>7&1 != 0 {
			return c.mk("blx", "", reg(rm)), true
		}
		return c.mk("bx", "", reg(rm)), true
	case h>>11 == 9: // LDR literal
		off := (h & 0xff) * 4
		in := c.mk("ldr", "", fmt.Sprintf("%s, [pc, #%d]", reg(r8), off))
		t := (c.pc+4)&^3 + uint64(off)
		in.Text += "  @ (" + target(t, c.sym) + ")"
		return in, true
	case h>>12 == 5: // load/store register offset
		op := [8]string{"str", "strh", "strb", "ldrsb", "ldr", "ldrh", "ldrb", "ldrsh"}[h>>9&7]
		return c.mk(op, "", fmt.Sprintf("%s, [%s, %s]", reg(r0), reg(r3), reg(r6))), true
	case h>>13 == 3, h>>12 == 8: // load/store immediate offset: word, byte, halfword
		var op string
		scale := 4
		switch h >> 11 {
		case 0xc:
			op = "str"
		case 0xd:
			op = "ldr"
		case 0xe:
			op, scale = "strb", 1
		case 0xf:
			op, scale = "ldrb", 1
		case 0x10:
			op, scale = "strh", 2
		default:
			op, scale = "ldrh", 2
		}
		return c.mk(op, "", fmt.Sprintf("%s, [%s, #%d]", reg(r0), reg(r3), (h>>6&31)*scale)), true
	case h>>12 == 9: // SP-relative load/store
		op := "str"
		if h>>11&1 != 0 {
			op = "ldr"
		}
		return c.mk(op, "", fmt.Sprintf("%s, [sp, #%d]", reg(r8), (h&0xff)*4)), true
	case h>>11 == 0x14: // ADR
		return c.mk("add", "", fmt.Sprintf("%s, pc, #%d", reg(r8), (h&0xff)*4)), true
	case h>>11 == 0x15: // ADD Rd, SP, #imm
		return c.mk("add", "", fmt.Sprintf("%s, sp, #%d", reg(r8), (h&0xff)*4)), true
	case h>>12 == 0xb:
		return thumb16Misc(h, c)
	case h>>11 == 0x18, h>>11 == 0x19: // STM, LDM
		list := h & 0xff
		if h>>11 == 0x18 {
			return c.mk("stmia", "", fmt.Sprintf("%s!, %s", reg(r8), regList(list))), true
		}
		wb := "!"
		if list&(1<<r8) != 0 {
			wb = ""
		}
		return c.mk("ldmia", "", fmt.Sprintf("%s%s, %s", reg(r8), wb, regList(list))), true
	case h>>12 == 0xd: // conditional branch, UDF, SVC
		cond := h >> 8 & 15
		switch cond {
		case 14:
			return c.mk("udf", "", imm(h&0xff)), true
		case 15:
			return c.mk("svc", "", fmt.Sprint(h&0xff)), true
		}
		t := c.pc + 4 + uint64(int64(int8(h&0xff))*2)
		in := c.branch("b"+condNames[cond], ".n", t)
		return in, true
	case h>>11 == 0x1c: // B
		off := int64(h&0x7ff) << 53 >> 52
		return c.branch("b", ".n", c.pc+4+uint64(off)), true
	}
	return Inst{}, false
}

// thumb16Misc decodes 1011 xxxx xxxx xxxx: SP adjust, CBZ/CBNZ, extends, PUSH/POP, REV,
// BKPT and the hints.
func thumb16Misc(h int, c *thumbCtx) (Inst, bool) {
	r0, r3 := h&7, h>>3&7
	switch {
	case h>>7 == 0x160: // 1011 0000 0: ADD SP
		return c.mk("add", "", fmt.Sprintf("sp, #%d", (h&0x7f)*4)), true
	case h>>7 == 0x161:
		return c.mk("sub", "", fmt.Sprintf("sp, #%d", (h&0x7f)*4)), true
	case h>>8&5 == 1: // 1011 o0i1: CBZ, CBNZ
		op := "cbz"
		if h>>11&1 != 0 {
			op = "cbnz"
		}
		off := uint64((h>>9&1)<<6 | (h>>3&31)<<1)
		in := c.mk(op, "", fmt.Sprintf("%s, %s", reg(r0), target(c.pc+4+off, c.sym)))
		in.Target, in.HasTarget = c.pc+4+off, true
		return in, true
	case h>>8 == 0xb2:
		op := [4]string{"sxth", "sxtb", "uxth", "uxtb"}[h>>6&3]
		return c.mk(op, "", fmt.Sprintf("%s, %s", reg(r0), reg(r3))), true
	case h>>9 == 0x5a: // PUSH
		return c.mk("push", "", regList(h&0xff|(h>>8&1)<<14)), true
	case h>>9 == 0x5e: // POP
		return c.mk("pop", "", regList(h&0xff|(h>>8&1)<<15)), true
	case h>>8 == 0xba && h>>6&3 != 2:
		op := [4]string{"rev", "rev16", "", "revsh"}[h>>6&3]
		return c.mk(op, "", fmt.Sprintf("%s, %s", reg(r0), reg(r3))), true
	case h>>8 == 0xbe:
		return c.mk("bkpt", "", fmt.Sprintf("0x%04x", h&0xff)), true
	case h>>8 == 0xbf && h&0xf == 0:
		if op := [5]string{"nop", "yield", "wfe", "wfi", "sev"}; h>>4&15 < 5 {
			return c.mk(op[h>>4&15], "", ""), true
		}
	}
	return Inst{}, false
}

package disasm

import (
	"fmt"
	"math/bits"
	"strings"
)

// thumb32 decodes a 32-bit Thumb-2 instruction (first halfword hw1, second hw2).
func thumb32(hw1, hw2 uint16, c *thumbCtx) (Inst, bool) {
	h1, h2 := int(hw1), int(hw2)
	switch {
	case h1>>9 == 0x74 && h1>>6&1 == 0: // 1110 100x x0: load/store multiple
		return t32LoadStoreMultiple(h1, h2, c)
	case h1>>9 == 0x74: // 1110 100x x1: dual, exclusive, table branch
		return t32DualExclusive(h1, h2, c)
	case h1>>9 == 0x75: // 1110 101: data processing, shifted register
		return t32ShiftedReg(h1, h2, c)
	case h1>>10 == 0x3b && h1>>12&1 == 0 && h1>>8&3 != 3: // 1110 11 (not 1110 1111, NEON): coprocessor, VFP (the A32 encoding with cond=AL)
		return t32Coproc(h1, h2, c)
	case h1>>11 == 0x1e && h2>>15 == 0 && h1>>9&1 == 0: // 1111 0x0: modified immediate
		return t32ModImm(h1, h2, c)
	case h1>>11 == 0x1e && h2>>15 == 0: // 1111 0x1: plain binary immediate
		return t32PlainImm(h1, h2, c)
	case h1>>11 == 0x1e: // branches and miscellaneous control
		return t32Branch(h1, h2, c)
	case h1>>9 == 0x7c: // 1111 100x: load/store single, memory hints
		return t32LoadStore(h1, h2, c)
	case h1>>8 == 0xfa: // 1111 1010: data processing, register
		return t32DataReg(h1, h2, c)
	case h1>>7 == 0x1f6: // 1111 1011 0: multiply, multiply-accumulate
		return t32Multiply(h1, h2, c)
	case h1>>7 == 0x1f7: // 1111 1011 1: long multiply, divide
		return t32LongMultiply(h1, h2, c)
	}
	return Inst{}, false
}

func t32LoadStoreMultiple(h1, h2 int, c *thumbCtx) (Inst, bool) {
	rn, w, l := h1&15, h1>>5&1, h1>>4&1
	list := h2
	mode := map[int]string{1: "ia", 2: "db"}[h1>>7&3]
	if mode == "" {
		return Inst{}, false // SRS, RFE
	}
	op := "stm" + mode
	if l == 1 {
		op = "ldm" + mode
	}
	wb := ""
	if w == 1 {
		wb = "!"
	}
	qual := ""
	if mode == "ia" {
		qual = ".w"
	}
	return c.mk(op, qual, fmt.Sprintf("%s%s, %s", reg(rn), wb, regList(list))), true
}

func t32DualExclusive(h1, h2 int, c *thumbCtx) (Inst, bool) {
	rn, rt, rt2 := h1&15, h2>>12, h2>>8&15
	p, u, w, l := h1>>8&1, h1>>7&1, h1>>5&1, h1>>4&1
	switch {
	case p == 0 && w == 0 && u == 0: // LDREX, STREX
		off := ""
		if h2&0xff != 0 {
			off = fmt.Sprintf(", #%d", (h2&0xff)*4)
		}
		if l == 1 {
			return c.mk("ldrex", "", fmt.Sprintf("%s, [%s%s]", reg(rt), reg(rn), off)), true
		}
		return c.mk("strex", "", fmt.Sprintf("%s, %s, [%s%s]", reg(rt2), reg(rt), reg(rn), off)), true
	case p == 0 && w == 0: // TBB, TBH, LDREXB/H/D, STREXB/H/D
		op2, rm := h2>>4&15, h2&15
		switch {
		case l == 1 && op2 == 0:
			return c.mk("tbb", "", fmt.Sprintf("[%s, %s]", reg(rn), reg(rm))), true
		case l == 1 && op2 == 1:
			return c.mk("tbh", "", fmt.Sprintf("[%s, %s, lsl #1]", reg(rn), reg(rm))), true
		case l == 1 && (op2 == 4 || op2 == 5):
			return c.mk("ldrex"+map[int]string{4: "b", 5: "h"}[op2], "", fmt.Sprintf("%s, [%s]", reg(rt), reg(rn))), true
		case l == 1 && op2 == 7:
			return c.mk("ldrexd", "", fmt.Sprintf("%s, %s, [%s]", reg(rt), reg(rt2), reg(rn))), true
		case l == 0 && (op2 == 4 || op2 == 5):
			return c.mk("strex"+map[int]string{4: "b", 5: "h"}[op2], "", fmt.Sprintf("%s, %s, [%s]", reg(rm), reg(rt), reg(rn))), true
		case l == 0 && op2 == 7:
			return c.mk("strexd", "", fmt.Sprintf("%s, %s, %s, [%s]", reg(rm), reg(rt), reg(rt2), reg(rn))), true
		}
		return Inst{}, false
	}
	op := "strd"
	if l == 1 {
		op = "ldrd"
	}
	return c.mk(op, "", fmt.Sprintf("%s, %s, %s", reg(rt), reg(rt2), memImm(rn, (h2&0xff)*4, u, p, w))), true
}

// memImm formats an immediate-offset address: [rn, #off], [rn, #off]! or [rn], #off.
func memImm(rn, off, u, p, w int) string {
	sign := ""
	if u == 0 {
		sign = "-"
	}
	switch {
	case p == 0:
		return fmt.Sprintf("[%s], #%s%d", reg(rn), sign, off)
	case w == 1:
		return fmt.Sprintf("[%s, #%s%d]!", reg(rn), sign, off)
	case off == 0 && u == 1:
		return fmt.Sprintf("[%s]", reg(rn))
	}
	return fmt.Sprintf("[%s, #%s%d]", reg(rn), sign, off)
}

var shiftNames = [4]string{"lsl", "lsr", "asr", "ror"}

// shiftText is ", lsl #n" for a shift of type t by imm (imm 0 of lsr/asr is 32, of ror rrx).
func shiftText(t, n int) string {
	switch {
	case t == 0 && n == 0:
		return ""
	case t == 3 && n == 0:
		return ", rrx"
	case n == 0:
		n = 32
	}
	return fmt.Sprintf(", %s #%d", shiftNames[t], n)
}

// dpOps are the data-processing opcodes shared by the shifted-register and modified-immediate
// forms; "" is unallocated.
var dpOps = [16]string{"and", "bic", "orr", "orn", "eor", "", "", "", "add", "", "adc", "sbc", "", "sub", "rsb", ""}

// dpWide reports whether op has a 16-bit form, which objdump writes with .w when 32-bit.
func dpWide(op string) bool {
	switch op {
	case "and", "bic", "orr", "eor", "add", "adc", "sbc", "sub", "mov", "mvn", "cmp", "cmn", "tst":
		return true
	}
	return false
}

// dpInst builds a data-processing instruction with operand text op2 (register or #imm),
// handling the compare forms (Rd=pc with S) and mov/mvn (Rn=pc of orr/orn; objdump writes
// a shifted mov as "mov.w rd, rm, lsl #n").
func dpInst(c *thumbCtx, opc, s, rn, rd int, op2 string) (Inst, bool) {
	op := dpOps[opc]
	if op == "" {
		return Inst{}, false
	}
	sfx := ""
	if s == 1 {
		sfx = "s"
	}
	cmp := map[string]string{"and": "tst", "eor": "teq", "add": "cmn", "sub": "cmp"}
	if t, ok := cmp[op]; ok && rd == 15 && s == 1 {
		return c.mk(t, wq(t), fmt.Sprintf("%s, %s", reg(rn), op2)), true
	}
	if rn == 15 && (op == "orr" || op == "orn") {
		op = map[string]string{"orr": "mov", "orn": "mvn"}[op]
		return c.mk(op+sfx, wq(op), fmt.Sprintf("%s, %s", reg(rd), op2)), true
	}
	return c.mk(op+sfx, wq(op), fmt.Sprintf("%s, %s, %s", reg(rd), reg(rn), op2)), true
}

func wq(op string) string {
	if dpWide(op) {
		return ".w"
	}
	return ""
}

func t32ShiftedReg(h1, h2 int, c *thumbCtx) (Inst, bool) {
	rn, rd, rm := h1&15, h2>>8&15, h2&15
	n := (h2>>12&7)<<2 | h2>>6&3
	op2 := reg(rm) + shiftText(h2>>4&3, n)
	return dpInst(c, h1>>5&15, h1>>4&1, rn, rd, op2)
}

// thumbExpandImm expands a 12-bit modified immediate.
func thumbExpandImm(i12 int) uint32 {
	v := uint32(i12 & 0xff)
	if i12>>10 == 0 {
		switch i12 >> 8 & 3 {
		case 1:
			return v<<16 | v
		case 2:
			return v<<24 | v<<8
		case 3:
			return v<<24 | v<<16 | v<<8 | v
		}
		return v
	}
	return bits.RotateLeft32(0x80|v&0x7f, -(i12 >> 7))
}

func t32ModImm(h1, h2 int, c *thumbCtx) (Inst, bool) {
	i12 := (h1>>10&1)<<11 | (h2>>12&7)<<8 | h2&0xff
	return dpInst(c, h1>>5&15, h1>>4&1, h1&15, h2>>8&15, fmt.Sprintf("#%d", thumbExpandImm(i12)))
}

func t32PlainImm(h1, h2 int, c *thumbCtx) (Inst, bool) {
	rn, rd := h1&15, h2>>8&15
	imm12 := (h1>>10&1)<<11 | (h2>>12&7)<<8 | h2&0xff
	lsb := (h2>>12&7)<<2 | h2>>6&3
	w5 := h2 & 31
	switch h1 >> 4 & 31 {
	case 0: // ADDW, ADR
		return c.mk("addw", "", fmt.Sprintf("%s, %s, #%d", reg(rd), reg(rn), imm12)), true
	case 10:
		return c.mk("subw", "", fmt.Sprintf("%s, %s, #%d", reg(rd), reg(rn), imm12)), true
	case 4, 12:
		op := "movw"
		if h1>>4&31 == 12 {
			op = "movt"
		}
		return c.mk(op, "", fmt.Sprintf("%s, #%d", reg(rd), (h1&15)<<12|imm12)), true
	case 20:
		return c.mk("sbfx", "", fmt.Sprintf("%s, %s, #%d, #%d", reg(rd), reg(rn), lsb, w5+1)), true
	case 28:
		return c.mk("ubfx", "", fmt.Sprintf("%s, %s, #%d, #%d", reg(rd), reg(rn), lsb, w5+1)), true
	case 22:
		if rn == 15 {
			return c.mk("bfc", "", fmt.Sprintf("%s, #%d, #%d", reg(rd), lsb, w5-lsb+1)), true
		}
		return c.mk("bfi", "", fmt.Sprintf("%s, %s, #%d, #%d", reg(rd), reg(rn), lsb, w5-lsb+1)), true
	case 16, 18, 24, 26:
		op := "ssat"
		if h1>>4&31 >= 24 {
			op = "usat"
		}
		sat := w5 + 1
		if op == "usat" {
			sat = w5
		}
		sh := ""
		if lsb != 0 {
			sh = fmt.Sprintf(", %s #%d", map[int]string{0: "lsl", 1: "asr"}[h1>>5&1], lsb)
		}
		return c.mk(op, "", fmt.Sprintf("%s, #%d, %s%s", reg(rd), sat, reg(rn), sh)), true
	}
	return Inst{}, false
}

// barrierOpts are the named options of DSB and DMB, by their 4-bit field.
var barrierOpts = [16]string{15: "sy", 14: "st", 11: "ish", 10: "ishst", 7: "nsh", 6: "nshst", 3: "osh", 2: "oshst"}

func t32Branch(h1, h2 int, c *thumbCtx) (Inst, bool) {
	s := h1 >> 10 & 1
	j1, j2 := h2>>13&1, h2>>11&1
	switch {
	case h2>>12&5 == 0 && h1>>7&7 != 7: // B<cond>.W
		off := s<<20 | j2<<19 | j1<<18 | (h1&0x3f)<<12 | (h2&0x7ff)<<1
		t := c.pc + 4 + uint64(int64(off)<<43>>43)
		return c.branch("b"+condNames[h1>>6&15], ".w", t), true
	case h2>>12&5 == 0: // miscellaneous control
		switch {
		case h1>>4&0x7f == 0x3a && h2&0x700 == 0: // hints
			if n := h2 & 0xff; n < 5 {
				return c.mk([5]string{"nop", "yield", "wfe", "wfi", "sev"}[n], ".w", ""), true
			}
		case h1>>4&0x7f == 0x3b: // DSB, DMB, ISB, CLREX
			opt := barrierOpts[h2&15]
			if opt == "" {
				opt = fmt.Sprintf("#%d", h2&15)
			}
			switch h2 >> 4 & 15 {
			case 2:
				return c.mk("clrex", "", ""), true
			case 4:
				return c.mk("dsb", "", opt), true
			case 5:
				return c.mk("dmb", "", opt), true
			case 6:
				return c.mk("isb", "", opt), true
			}
		case h1 == 0xf7f0 && h2>>12 == 0xa:
			return c.mk("udf", ".w", fmt.Sprintf("#%d", (h1&15)<<12|h2&0xfff)), true
		}
		return Inst{}, false
	}
	i1, i2 := 1^(j1^s), 1^(j2^s)
	off := int64(s<<24|i1<<23|i2<<22|(h1&0x3ff)<<12|(h2&0x7ff)<<1) << 39 >> 39
	switch h2 >> 12 & 5 {
	case 1:
		return c.branch("b", ".w", c.pc+4+uint64(off)), true
	case 5:
		return c.branch("bl", "", c.pc+4+uint64(off)), true
	}
	if h2&1 != 0 {
		return Inst{}, false
	}
	return c.branch("blx", "", (c.pc+4)&^3+uint64(off)), true
}

func t32LoadStore(h1, h2 int, c *thumbCtx) (Inst, bool) {
	sign, up, size, l := h1>>8&1, h1>>7&1, h1>>5&3, h1>>4&1
	rn, rt := h1&15, h2>>12
	if size == 3 || (sign == 1 && l == 0) {
		return Inst{}, false
	}
	op := [2][3]string{{"str", "strh", "str"}, {"ldr", "ldrh", "ldr"}}[l][size]
	switch {
	case size == 0 && l == 0:
		op = "strb"
	case size == 0:
		op = "ldrb"
	}
	if sign == 1 {
		op = map[string]string{"ldrb": "ldrsb", "ldrh": "ldrsh"}[op]
		if op == "" {
			return Inst{}, false
		}
	}
	if l == 1 && rt == 15 && size != 2 { // PLD, PLI
		op = "pld"
		if sign == 1 {
			op = "pli"
		}
		if rn == 15 || up == 1 || h2>>8&15 == 12 || h2>>6&63 == 0 {
			addr := ldstAddr(h1, h2, c)
			return c.mk(op, "", addr), true
		}
		return Inst{}, false
	}
	if rn == 15 && l == 1 { // literal
		off := h2 & 0xfff
		sgn := ""
		t := (c.pc + 4) &^ 3
		if up == 0 {
			sgn = "-"
			t -= uint64(off)
		} else {
			t += uint64(off)
		}
		in := c.mk(op, ".w", fmt.Sprintf("%s, [pc, #%s%d]", reg(rt), sgn, off))
		in.Text += "  @ " + target(t, c.sym)
		return in, true
	}
	if up == 0 && h2>>11&1 == 1 && h2>>8&15 == 14 { // LDRT and friends
		return c.mk(op+"t", "", fmt.Sprintf("%s, [%s, #%d]", reg(rt), reg(rn), h2&0xff)), true
	}
	if up == 0 && h2>>11&1 == 0 && h2>>6&63 != 0 {
		return Inst{}, false
	}
	return c.mk(op, ".w", reg(rt)+", "+ldstAddr(h1, h2, c)), true
}

// ldstAddr is the address operand of a single load/store or hint.
func ldstAddr(h1, h2 int, c *thumbCtx) string {
	rn := h1 & 15
	switch {
	case rn == 15:
		if h1>>7&1 == 1 {
			return fmt.Sprintf("[pc, #%d]", h2&0xfff)
		}
		return fmt.Sprintf("[pc, #-%d]", h2&0xfff)
	case h1>>7&1 == 1: // imm12
		return fmt.Sprintf("[%s, #%d]", reg(rn), h2&0xfff)
	case h2>>11&1 == 1: // imm8 with P, U, W
		return memImm(rn, h2&0xff, h2>>9&1, h2>>10&1, h2>>8&1)
	}
	sh := ""
	if n := h2 >> 4 & 3; n != 0 {
		sh = fmt.Sprintf(", lsl #%d", n)
	}
	return fmt.Sprintf("[%s, %s%s]", reg(rn), reg(h2&15), sh)
}

func t32DataReg(h1, h2 int, c *thumbCtx) (Inst, bool) {
	rn, rd, rm := h1&15, h2>>8&15, h2&15
	op1, op2 := h1>>4&15, h2>>4&15
	if h2>>12 != 15 {
		return Inst{}, false
	}
	switch {
	case op1>>3 == 0 && op2 == 0: // shift by register
		s := ""
		if op1&1 == 1 {
			s = "s"
		}
		return c.mk(shiftNames[op1>>1]+s, ".w", fmt.Sprintf("%s, %s, %s", reg(rd), reg(rn), reg(rm))), true
	case op1 <= 5 && op2>>3 == 1: // extends
		base := [6]string{"sxth", "uxth", "sxtb16", "uxtb16", "sxtb", "uxtb"}[op1]
		rot := ""
		if r := op2 & 3; r != 0 {
			rot = fmt.Sprintf(", ror #%d", r*8)
		}
		if rn == 15 {
			q := ""
			if op1 != 2 && op1 != 3 {
				q = ".w"
			}
			return c.mk(base, q, fmt.Sprintf("%s, %s%s", reg(rd), reg(rm), rot)), true
		}
		op := base[:2] + "xta" + base[3:]
		return c.mk(op, "", fmt.Sprintf("%s, %s, %s%s", reg(rd), reg(rn), reg(rm), rot)), true
	case op1>>2 == 2 && op2>>2 == 2: // miscellaneous
		switch op1&3<<2 | op2&3 {
		case 4:
			return c.mk("rev", ".w", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		case 5:
			return c.mk("rev16", ".w", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		case 6:
			return c.mk("rbit", "", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		case 7:
			return c.mk("revsh", ".w", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		case 8:
			return c.mk("sel", "", fmt.Sprintf("%s, %s, %s", reg(rd), reg(rn), reg(rm))), true
		case 12:
			return c.mk("clz", "", fmt.Sprintf("%s, %s", reg(rd), reg(rm))), true
		}
	case op1>>3 == 1 && op2>>3 == 0: // parallel add/subtract
		ops := [8]string{"add8", "add16", "sub8", "sub16", "asx", "sax", "", ""}
		ix := map[int]int{0: 0, 1: 1, 4: 2, 5: 3, 2: 4, 6: 5}[op1&7]
		if op1&7 == 3 || op1&7 == 7 || ops[ix] == "" {
			return Inst{}, false
		}
		pre := [2][4]string{{"s", "q", "sh", ""}, {"u", "uq", "uh", ""}}[op2>>2&1][op2&3]
		if pre == "" {
			return Inst{}, false
		}
		return c.mk(pre+ops[ix], "", fmt.Sprintf("%s, %s, %s", reg(rd), reg(rn), reg(rm))), true
	}
	return Inst{}, false
}

func t32Multiply(h1, h2 int, c *thumbCtx) (Inst, bool) {
	rn, ra, rd, rm := h1&15, h2>>12, h2>>8&15, h2&15
	switch {
	case h1>>4&7 == 0 && h2>>4&15 == 0:
		if ra == 15 {
			return c.mk("mul", ".w", fmt.Sprintf("%s, %s, %s", reg(rd), reg(rn), reg(rm))), true
		}
		return c.mk("mla", "", fmt.Sprintf("%s, %s, %s, %s", reg(rd), reg(rn), reg(rm), reg(ra))), true
	case h1>>4&7 == 0 && h2>>4&15 == 1:
		return c.mk("mls", "", fmt.Sprintf("%s, %s, %s, %s", reg(rd), reg(rn), reg(rm), reg(ra))), true
	case h1>>4&7 == 1 && h2>>6&3 == 0: // SMLA<x><y>, SMUL<x><y>
		xy := [2]string{"b", "t"}[h2>>5&1] + [2]string{"b", "t"}[h2>>4&1]
		if ra == 15 {
			return c.mk("smul"+xy, "", fmt.Sprintf("%s, %s, %s", reg(rd), reg(rn), reg(rm))), true
		}
		return c.mk("smla"+xy, "", fmt.Sprintf("%s, %s, %s, %s", reg(rd), reg(rn), reg(rm), reg(ra))), true
	}
	return Inst{}, false
}

func t32LongMultiply(h1, h2 int, c *thumbCtx) (Inst, bool) {
	rn, lo, hi, rm := h1&15, h2>>12, h2>>8&15, h2&15
	op1, op2 := h1>>4&7, h2>>4&15
	switch {
	case op2 == 15 && (op1 == 1 || op1 == 3):
		op := "sdiv"
		if op1 == 3 {
			op = "udiv"
		}
		return c.mk(op, "", fmt.Sprintf("%s, %s, %s", reg(hi), reg(rn), reg(rm))), true
	case op2 == 0 && op1 != 1 && op1 != 3 && op1 != 5 && op1 != 7:
		op := map[int]string{0: "smull", 2: "umull", 4: "smlal", 6: "umlal"}[op1]
		return c.mk(op, "", fmt.Sprintf("%s, %s, %s, %s", reg(lo), reg(hi), reg(rn), reg(rm))), true
	case op1 == 6 && op2 == 6:
		return c.mk("umaal", "", fmt.Sprintf("%s, %s, %s, %s", reg(lo), reg(hi), reg(rn), reg(rm))), true
	}
	return Inst{}, false
}

// t32Coproc decodes coprocessor and VFP instructions through the A32 decoder: the T32
// encoding of 1110 11xx with T=0 is the A32 one with cond=1110. The IT condition goes where
// objdump puts it, before the data type (vmovgt.f64).
func t32Coproc(h1, h2 int, c *thumbCtx) (Inst, bool) {
	w := uint32(h1)<<16 | uint32(h2)
	op, args, ok := armText(w)
	if !ok {
		op, args, ok = armExtra(w)
	}
	if !ok {
		return Inst{}, false
	}
	base, dt, _ := strings.Cut(op, ".")
	if dt != "" {
		dt = "." + dt
	}
	return c.mk(base, dt, args), true
}

package disasm

import (
	"fmt"
	"strings"
)

// itState is the IT block in progress: the conditions of the instructions it still covers.
type itState struct {
	conds []string
}

// condInverse is the condition that fails when c holds ("" for an unknown c).
func condInverse(c string) string {
	switch c {
	case "hs":
		return "lo"
	case "lo":
		return "hs"
	case "al":
		return "al"
	}
	for i, n := range condNames[:14] {
		if n == c {
			return condNames[i^1] // the conditions come in pairs: eq/ne, cs/cc, ...
		}
	}
	return ""
}

var condNames = [16]string{"eq", "ne", "cs", "cc", "mi", "pl", "vs", "vc", "hi", "ls", "ge",
	"lt", "gt", "le", "", ""}

// thumbCtx is what one Thumb instruction's decoding knows about its place.
type thumbCtx struct {
	pc   uint64
	cond string // the IT condition of this instruction ("" outside IT blocks)
	inIT bool
	sym  Symbolizer
}

// decodeThumb decodes the T32 instruction at the start of code; it carries the IT block
// from one instruction to the next.
func decodeThumb(pc uint64, code []byte, sym Symbolizer, it *itState) Inst {
	if len(code) < 2 {
		return byteData(pc, code)
	}
	hw1 := uint16(code[0]) | uint16(code[1])<<8
	ctx := thumbCtx{pc: pc, sym: sym}
	if len(it.conds) > 0 {
		ctx.cond, ctx.inIT = it.conds[0], true
		it.conds = it.conds[1:]
	}
	if hw1>>11 >= 0x1d { // 32-bit encoding
		if len(code) < 4 {
			return dataInst(pc, ".short", fmt.Sprintf("0x%04x", hw1), 2)
		}
		hw2 := uint16(code[2]) | uint16(code[3])<<8
		in, ok := thumb32(hw1, hw2, &ctx)
		if !ok {
			return dataInst(pc, ".word", fmt.Sprintf("0x%04x%04x", hw1, hw2), 4)
		}
		in.Len = 4
		return in
	}
	if hw1&0xff00 == 0xbf00 && hw1&0xf != 0 { // IT
		return thumbIT(hw1, it)
	}
	in, ok := thumb16(hw1, &ctx)
	if !ok {
		return dataInst(pc, ".short", fmt.Sprintf("0x%04x", hw1), 2)
	}
	in.Len = 2
	return in
}

// thumbIT decodes an IT instruction and starts its block.
func thumbIT(hw1 uint16, it *itState) Inst {
	first := int(hw1 >> 4 & 0xf)
	mask := int(hw1 & 0xf)
	fc := condNames[first]
	if fc == "" {
		fc = "al"
	}
	// The block length is 4 minus the number of trailing zeros of mask.
	n := 4
	for mask&(1<<(4-n)) == 0 {
		n--
	}
	suffix := ""
	conds := []string{fc}
	for i := 1; i < n; i++ {
		bit := mask >> (4 - i) & 1
		if bit == first&1 {
			suffix += "t"
			conds = append(conds, fc)
		} else {
			suffix += "e"
			conds = append(conds, condInverse(fc))
		}
	}
	it.conds = conds
	op := "it" + suffix
	return Inst{Len: 2, Op: op, Text: pad(op, fc)}
}

// mk builds a Thumb instruction from its base mnemonic and operands, with the IT condition
// appended as objdump does (before the .w/.n qualifier).
func (c *thumbCtx) mk(base, qual, args string) Inst {
	op := base + c.cond + qual
	in := Inst{Op: op, Text: pad(op, args), Class: armClass(op, args)}
	return in
}

// branch builds a direct branch to t.
func (c *thumbCtx) branch(base, qual string, t uint64) Inst {
	in := c.mk(base, qual, target(t, c.sym))
	in.Target, in.HasTarget = t, true
	return in
}

// s is the flag-setting suffix of a 16-bit data-processing instruction: "s" outside IT
// blocks, "" inside.
func (c *thumbCtx) s() string {
	if c.inIT {
		return ""
	}
	return "s"
}

func reg(r int) string {
	switch r {
	case 10:
		return "sl"
	case 11:
		return "fp"
	case 12:
		return "ip"
	case 13:
		return "sp"
	case 14:
		return "lr"
	case 15:
		return "pc"
	}
	return fmt.Sprintf("r%d", r)
}

// regList formats a register list bitmap as objdump does: {r4, r5, lr}.
func regList(bits int) string {
	var rs []string
	for r := 0; r < 16; r++ {
		if bits&(1<<r) != 0 {
			rs = append(rs, reg(r))
		}
	}
	return "{" + strings.Join(rs, ", ") + "}"
}

func imm(v int) string { return fmt.Sprintf("#%d", v) }

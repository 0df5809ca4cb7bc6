package disasm

import (
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/arch/arm/armasm"
)

func decodeARM(pc uint64, code []byte, sym Symbolizer) Inst {
	if len(code) < 4 {
		return dataWord(pc, code, ^uint64(0))
	}
	w := binary.LittleEndian.Uint32(code)
	op, args, ok := armText(w)
	if !ok {
		op, args, ok = armExtra(w)
	}
	if !ok {
		return dataInst(pc, ".word", fmt.Sprintf("0x%08x", w), 4)
	}
	switch {
	case w == 0xe1a00000: // mov r0, r0
		op, args = "nop", ""
	case withCond(op, "stm") && strings.Contains(args, "!"):
		op = "stmia" + op[3:] // objdump's spelling of the default (increment after) with writeback
	}
	in := Inst{Len: 4, Op: op, Class: armClass(op, args)}
	if rel, ok := armRel(w); ok {
		in.Target, in.HasTarget = pc+8+uint64(int64(rel)), true
		args = replaceRel(args, in.Target, sym)
	}
	in.Text = pad(op, args)
	return in
}

// armText decodes one A32 word with armasm: objdump's mnemonic (lower case) and operands.
func armText(w uint32) (op, args string, ok bool) {
	b := []byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24)}
	lock.Lock()
	inst, err := armasm.Decode(b, armasm.ModeARM)
	var text string
	if err == nil {
		text = armasm.GNUSyntax(inst)
	}
	lock.Unlock()
	if err != nil || text == "" || strings.HasPrefix(text, "?") {
		return "", "", false
	}
	op, args, _ = strings.Cut(text, " ")
	return strings.ToLower(op), args, true
}

// armRel is the PC-relative offset of a direct branch word (b, bl, blx immediate).
func armRel(w uint32) (int32, bool) {
	if w>>25&7 != 5 { // 101: B/BL/BLX(imm)
		return 0, false
	}
	off := int32(w<<8) >> 6 // imm24 sign-extended, times 4
	if w>>28 == 0xf {
		off |= int32(w>>24&1) << 1 // BLX: H bit
	}
	return off, true
}

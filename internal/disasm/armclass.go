package disasm

import "strings"

// isCond reports whether s is an ARM condition suffix (a switch, not a map: no work at
// package init, which every launch of pmc pays).
func isCond(s string) bool {
	switch s {
	case "eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le", "al":
		return true
	}
	return false
}

// withCond reports whether op is base optionally followed by a condition ("bne" for "b").
func withCond(op, base string) bool {
	return op == base || (len(op) == len(base)+2 && strings.HasPrefix(op, base) && isCond(op[len(base):]))
}

// armClass classifies an ARM (A64, A32 or T32) instruction from its objdump mnemonic and
// operand text.
func armClass(op, args string) Class {
	op, _, _ = strings.Cut(op, ".") // b.ne -> b (A64), ldr.w -> ldr, vdiv.f64 -> vdiv
	lower := strings.ToLower(args)
	writesPC := strings.HasPrefix(lower, "pc,") || strings.HasPrefix(lower, "pc ") || lower == "pc"
	popsPC := strings.Contains(lower, "pc}")
	switch {
	case op == "ret", op == "eret":
		return Branch | Return
	case withCond(op, "bl"), withCond(op, "blx"), op == "blr", op == "blraa", op == "blrab":
		return Call
	case withCond(op, "bx"):
		if strings.HasPrefix(lower, "lr") {
			return Branch | Return
		}
		return Branch
	case withCond(op, "b"), op == "br", op == "cbz", op == "cbnz", op == "tbz", op == "tbnz":
		return Branch
	case withCond(op, "tbb"), withCond(op, "tbh"):
		return Branch | Load
	case strings.HasPrefix(op, "sdiv"), strings.HasPrefix(op, "udiv"), op == "fdiv",
		op == "fsqrt", strings.HasPrefix(op, "vdiv"), strings.HasPrefix(op, "vsqrt"):
		return LongLatency
	case strings.HasPrefix(op, "prf"), strings.HasPrefix(op, "pld"), strings.HasPrefix(op, "pli"):
		return 0
	case strings.HasPrefix(op, "ldadd"), strings.HasPrefix(op, "ldclr"), strings.HasPrefix(op, "ldeor"),
		strings.HasPrefix(op, "ldset"), strings.HasPrefix(op, "ldsmax"), strings.HasPrefix(op, "ldsmin"),
		strings.HasPrefix(op, "ldumax"), strings.HasPrefix(op, "ldumin"), strings.HasPrefix(op, "cas"),
		strings.HasPrefix(op, "swp"):
		return Load | Store
	case strings.HasPrefix(op, "pop"), strings.HasPrefix(op, "ldm"), strings.HasPrefix(op, "ldr"):
		if popsPC || writesPC {
			return Load | Branch | Return
		}
		return Load
	case strings.HasPrefix(op, "ld"), strings.HasPrefix(op, "vld"), strings.HasPrefix(op, "vpop"):
		return Load
	case strings.HasPrefix(op, "push"), strings.HasPrefix(op, "stm"), strings.HasPrefix(op, "st"),
		strings.HasPrefix(op, "vst"), strings.HasPrefix(op, "vpush"):
		return Store
	case writesPC && (strings.HasPrefix(op, "mov") || strings.HasPrefix(op, "add") || strings.HasPrefix(op, "sub")):
		return Branch
	}
	return 0
}

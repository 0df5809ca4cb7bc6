package disasm

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// x86Spelling is objdump's (binutils 2.40) spelling of mnemonics x86asm's GNU syntax writes
// with an AT&T size suffix, and the AT&T names of the sign extensions; "" for the others.
// (Switches, not maps or regular expressions, here and below: no work at package init,
// which every launch of pmc pays.)
func x86Spelling(op string) string {
	switch op {
	case "callq", "retq", "jmpq", "lcallq", "ljmpq", "lretq", "pushq", "popq", "leaveq", "pushfq", "popfq", "xbeginq":
		return op[:len(op)-1]
	case "cbw":
		return "cbtw"
	case "cwde":
		return "cwtl"
	case "cdqe":
		return "cltq"
	case "cwd":
		return "cwtd"
	case "cdq":
		return "cltd"
	case "cqo":
		return "cqto"
	}
	return ""
}

// vpcmpSize is the element size suffix of an EVEX integer compare ("vpcmpub": "ub").
func vpcmpSize(op string) (string, bool) {
	s, ok := strings.CutPrefix(op, "vpcmp")
	switch s {
	case "b", "w", "d", "q", "ub", "uw", "ud", "uq":
		return s, ok
	}
	return "", false
}

var vpcmpPred = [8]string{"eq", "lt", "le", "false", "neq", "nlt", "nle", "true"}

// bmiSuffixed reports whether op is a VEX-encoded integer instruction x86asm spells with an
// operand size suffix and objdump without.
func bmiSuffixed(op string) bool {
	switch op {
	case "sarx", "shlx", "shrx", "rorx", "bzhi", "blsmsk", "blsr", "blsi", "andn", "pdep", "pext", "mulx", "bextr":
		return true
	}
	return false
}

// x86Prefix reports whether w is a prefix word that may precede the mnemonic in the text.
func x86Prefix(w string) bool {
	switch w {
	case "rep", "repz", "repnz", "repe", "repne", "lock", "notrack", "bnd", "cs", "ds", "ss", "es", "fs", "gs",
		"data16", "data32", "addr32", "xacquire", "xrelease":
		return true
	}
	return false
}

func decodeX86(pc uint64, code []byte, sym Symbolizer) Inst {
	switch {
	case bytes.HasPrefix(code, []byte{0xf3, 0x0f, 0x1e, 0xfa}):
		return Inst{Len: 4, Op: "endbr64", Text: "endbr64"}
	case bytes.HasPrefix(code, []byte{0xf3, 0x0f, 0x1e, 0xfb}):
		return Inst{Len: 4, Op: "endbr32", Text: "endbr32"}
	}
	if in, ok := x86CET(code); ok {
		return in
	}
	// VEX 0f 77 has no ModRM; x86asm takes one (and a byte of the next instruction).
	if len(code) >= 3 && code[0] == 0xc5 && code[2] == 0x77 {
		return vzero(code[1]>>2&1, 3)
	}
	if len(code) >= 4 && code[0] == 0xc4 && code[1]&0x1f == 1 && code[3] == 0x77 {
		return vzero(code[2]>>2&1, 4)
	}
	inst, err := x86asm.Decode(code, 64)
	if err != nil || inst.Op == 0 || inst.Len <= 0 || inst.Len > len(code) {
		n := x86Len(code)
		if n == 0 {
			n = 1
		}
		return byteData(pc, code[:n])
	}
	text := x86asm.GNUSyntax(inst, pc, nil)
	if inst.Op == x86asm.NOP && bytes.HasPrefix(code, []byte{0x66, 0x90}) {
		text = "xchg %ax,%ax" // objdump's name for the two-byte nop
	}
	if inst.Op == x86asm.NOP {
		text = x86NopPrefixes(code, text)
	}
	text = x87Operands(code, text)
	var prefix string
	for {
		w, rest, ok := strings.Cut(text, " ")
		if !ok || !x86Prefix(w) {
			break
		}
		prefix, text = prefix+w+" ", rest
	}
	op, args, _ := strings.Cut(text, " ")
	if s := x86Spelling(op); s != "" {
		op = s
	}
	if size, ok := vpcmpSize(op); ok {
		// EVEX compares with a predicate immediate: objdump writes the predicate's name.
		if imm, rest, ok := strings.Cut(args, ","); ok && len(imm) == 4 && strings.HasPrefix(imm, "$0x") {
			if v := imm[3] - '0'; v < 8 {
				op, args = "vpcmp"+vpcmpPred[v]+size, rest
			}
		}
	}
	if bmiSuffixed(strings.TrimRight(op, "lq")) && (strings.HasSuffix(op, "l") || strings.HasSuffix(op, "q")) {
		op = op[:len(op)-1]
	}
	switch {
	case op == "movsxd" && inst.DataSize == 64:
		op = "movslq"
	case inst.Op == x86asm.MOV && x86MovAbs(code, inst.DataSize):
		op = "movabs" // 64-bit immediate or absolute address
		if im, ok := inst.Args[1].(x86asm.Imm); ok {
			_, dst, _ := strings.Cut(args, ",")
			args = fmt.Sprintf("$0x%x,%s", uint64(im), dst)
		}
	}
	args = x86Operands(args, inst, code[:inst.Len])
	if prefix == "rep " && inst.Op == x86asm.RET {
		prefix = "repz "
	}
	if prefix == "ds " && (inst.Op == x86asm.JMP || inst.Op == x86asm.CALL) && strings.HasPrefix(args, "*") {
		prefix = "notrack " // 3e on an indirect branch is CET's notrack
	}
	in := Inst{Len: inst.Len, Op: op, Class: x86Class(inst)}
	for _, a := range inst.Args {
		switch a := a.(type) {
		case x86asm.Rel:
			in.Target = pc + uint64(inst.Len) + uint64(int64(a))
			in.HasTarget = true
			// GNUSyntax writes the target as 0x...; objdump as "addr <sym+off>".
			if i := strings.LastIndex(args, "0x"); i >= 0 {
				args = args[:i] + target(in.Target, sym)
			}
		case x86asm.Mem:
			if a.Base == 0 && a.Index == 0 && a.Segment == 0 && x86RIPForm(code) {
				// x86asm loses the RIP base of a VEX operand: written as objdump does.
				if d := fmt.Sprintf("%#x", a.Disp); strings.Count(args, d) == 1 {
					args = strings.Replace(args, d, d+"(%rip)", 1)
				}
				a.Base = x86asm.RIP
			}
			if a.Base == x86asm.RIP && sym != nil {
				t := pc + uint64(inst.Len) + uint64(int64(int32(a.Disp))) // a signed 32-bit displacement
				if _, _, ok := sym(t); ok {
					args += "        # " + target(t, sym)
				}
			}
		}
	}
	in.Text = pad(prefix+op, args) // objdump pads its prefixes and mnemonic as one
	return in
}

func vzero(l byte, n int) Inst {
	if l == 1 {
		return Inst{Len: n, Op: "vzeroall", Text: "vzeroall"}
	}
	return Inst{Len: n, Op: "vzeroupper", Text: "vzeroupper"}
}

// x86MovAbs reports whether code is a mov with a 64-bit immediate (b8+r with REX.W) or an
// absolute address (a0-a3), which objdump calls movabs.
func x86MovAbs(code []byte, size int) bool {
	i := x86ImmStart(code)
	if i > len(code) {
		return false
	}
	opb := code[i-1]
	return (opb&0xf8 == 0xb8 && size == 64) || opb&0xfc == 0xa0
}

// x86ImmStart is the offset of the first byte after the prefixes, REX and a one-byte opcode
// of the instruction in code (enough to tell movabs from mov).
func x86ImmStart(code []byte) int {
	i := 0
	for i < len(code) && i < 14 && (code[i] == 0x66 || code[i] == 0x67 || code[i]&0xf0 == 0x40 ||
		code[i] == 0xf2 || code[i] == 0xf3 || code[i] == 0x2e || code[i] == 0x3e || code[i] == 0x64 || code[i] == 0x65) {
		i++
	}
	return i + 1
}

func x86Class(inst x86asm.Inst) Class {
	name := inst.Op.String()
	var c Class
	switch {
	case inst.Op == x86asm.CALL || inst.Op == x86asm.LCALL:
		return Call
	case inst.Op == x86asm.RET || inst.Op == x86asm.LRET || inst.Op == x86asm.IRET ||
		inst.Op == x86asm.IRETD || inst.Op == x86asm.IRETQ:
		return Branch | Return
	case inst.Op == x86asm.JMP || inst.Op == x86asm.LJMP || strings.HasPrefix(name, "LOOP") ||
		(name[0] == 'J' && name != "JMP"):
		c |= Branch
	case inst.Op == x86asm.PUSH:
		c |= Store
	case inst.Op == x86asm.POP:
		c |= Load
	case inst.Op == x86asm.LEA || inst.Op == x86asm.NOP || strings.HasPrefix(name, "PREFETCH"):
		return 0
	}
	for _, p := range []string{"DIV", "IDIV", "FDIV", "FIDIV", "FSQRT", "SQRT", "VDIV", "VSQRT"} {
		if strings.HasPrefix(name, p) {
			c |= LongLatency
		}
	}
	for i, a := range inst.Args {
		if _, ok := a.(x86asm.Mem); !ok {
			continue
		}
		if i > 0 {
			c |= Load
			continue
		}
		switch {
		case strings.HasPrefix(name, "CMP") || strings.HasPrefix(name, "TEST") ||
			strings.HasPrefix(name, "UCOMIS") || strings.HasPrefix(name, "COMIS") ||
			name == "BT" || strings.HasPrefix(name, "SCAS") || strings.HasPrefix(name, "LODS"):
			c |= Load
		case strings.HasPrefix(name, "MOVS") && len(name) == 5: // string moves
			c |= Load | Store
		case strings.HasPrefix(name, "MOV") || strings.HasPrefix(name, "SET") ||
			strings.HasPrefix(name, "STOS") || strings.HasPrefix(name, "FST") ||
			strings.HasPrefix(name, "FIST") || strings.HasPrefix(name, "VMOV") ||
			strings.HasPrefix(name, "PEXTR") || strings.HasPrefix(name, "EXTRACT"):
			c |= Store
		case inst.Op == x86asm.PUSH || inst.Op == x86asm.POP:
			c |= Load | Store
		case strings.HasPrefix(name, "J") || inst.Op == x86asm.CALL:
			c |= Load // indirect through memory
		default:
			c |= Load | Store
		}
	}
	return c
}

// x86NopPrefixes writes a padding nop's prefixes as objdump does: every 66 but the last
// (the operand size of nopw) as data16, 2e as cs, in their order.
func x86NopPrefixes(code []byte, text string) string {
	end := x86ImmStart(code) - 1
	if end <= 0 || end >= len(code) || code[end] != 0x0f {
		return text
	}
	pre := code[:end]
	last66 := bytes.LastIndexByte(pre, 0x66)
	var words []string
	for i, c := range pre {
		switch {
		case c == 0x66 && i != last66:
			words = append(words, "data16")
		case c == 0x2e:
			words = append(words, "cs")
		case c == 0x66:
		default:
			return text // another prefix: as x86asm writes it
		}
	}
	// x86asm's own prefix words go: the nop and its operands stay.
	for {
		w, rest, ok := strings.Cut(text, " ")
		if !ok || !x86Prefix(w) {
			break
		}
		text = rest
	}
	return strings.Join(append(words, text), " ")
}

// x86CET decodes the shadow-stack instructions x86asm does not know (incssp, rdssp).
func x86CET(code []byte) (Inst, bool) {
	if len(code) < 4 || code[0] != 0xf3 {
		return Inst{}, false
	}
	i, rex := 1, byte(0)
	if code[1]&0xf0 == 0x40 {
		rex, i = code[1], 2
	}
	if len(code) < i+3 || code[i] != 0x0f {
		return Inst{}, false
	}
	op, modrm := code[i+1], code[i+2]
	var name string
	switch {
	case op == 0xae && modrm&0xf8 == 0xe8:
		name = "incssp"
	case op == 0x1e && modrm&0xf8 == 0xc8:
		name = "rdssp"
	default:
		return Inst{}, false
	}
	reg := x86asm.Reg(x86asm.EAX + x86asm.Reg(modrm&7|rex&1<<3))
	suffix := "d"
	if rex&8 != 0 {
		reg, suffix = x86asm.Reg(x86asm.RAX+x86asm.Reg(modrm&7|rex&1<<3)), "q"
	}
	text := pad(name+suffix, "%"+strings.ToLower(reg.String()))
	return Inst{Len: i + 3, Op: name + suffix, Text: text}, true
}

// x87Operands writes the ModRM register ST(0) of an x87 register form as objdump does,
// "%st(0)", where x86asm writes "%st" (the implied ST(0) stays "%st").
func x87Operands(code []byte, text string) string {
	i := x86ImmStart(code) - 1
	if i < 0 || i+1 >= len(code) || code[i] < 0xd8 || code[i] > 0xdf || code[i+1] != 0xc0|code[i+1]&0x38 {
		return text // not x87, or not the register form with ST(0)
	}
	op, args, ok := strings.Cut(text, " ")
	if !ok {
		return text
	}
	args = strings.TrimSpace(args)
	switch {
	case args == "%st":
		args = "%st(0)"
	case args == "%st,%st" && (code[i] == 0xdc || code[i] == 0xde):
		args = "%st,%st(0)" // the destination is ST(i)
	case args == "%st,%st":
		args = "%st(0),%st"
	default:
		return text
	}
	return op + " " + args
}

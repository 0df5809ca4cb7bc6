package disasm

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/arch/x86/x86asm"
)

// Operands as objdump writes them where x86asm's GNU syntax differs: a memory operand's
// displacement signed and present whenever the encoding has one ("0x0(%rax,%rax,1)",
// "-0xb7(%rdi)"), its scale always written with an index; an immediate as the unsigned
// value of the operand's size ("$0xfffffffffffffff0").

// x86REs are compiled at their first use, not at package init (which every launch of pmc
// pays): mem is a memory operand of GNU syntax (segment, displacement, (base,index,scale)),
// segAbs an absolute memory operand with a segment, "%fs:0x28" or x86asm's "%fs:".
var x86REs struct {
	once        sync.Once
	mem, segAbs *regexp.Regexp
}

func x86Regexps() (mem, segAbs *regexp.Regexp) {
	x86REs.once.Do(func() {
		x86REs.mem = regexp.MustCompile(`(%[a-z]s:)?(-?0x[0-9a-f]+)?\((%[a-z0-9]+)?(,%[a-z0-9]+(,[1248])?)?\)`)
		x86REs.segAbs = regexp.MustCompile(`%[a-z]s:(0x[0-9a-f]+)?`)
	})
	return x86REs.mem, x86REs.segAbs
}

// x86Operands rewrites args (x86asm's GNU operands of inst, decoded from code).
func x86Operands(args string, inst x86asm.Inst, code []byte) string {
	// An EVEX mask and zeroing follow their operand.
	args = strings.ReplaceAll(strings.ReplaceAll(args, " {%k", "{%k"), " {z}", "{z}")
	var mem *x86asm.Mem
	nmem := 0
	for _, a := range inst.Args {
		switch a := a.(type) {
		case x86asm.Mem:
			nmem++
			m := a
			mem = &m
		case x86asm.Imm:
			if a < 0 {
				args = strings.Replace(args, fmt.Sprintf("$-0x%x", -int64(a)), fmt.Sprintf("$0x%x", uint64(a)&immMask(inst)), 1)
			}
		}
	}
	if nmem != 1 {
		return args
	}
	memRE, segAbsRE := x86Regexps()
	if mem.Base == 0 && mem.Index == 0 {
		// An absolute address (with a segment: %fs:0x0, %fs:0xffffffffffffffc0): its
		// 32 bits sign-extended, as objdump writes it.
		if mem.Segment != 0 {
			seg := "%" + strings.ToLower(mem.Segment.String()) + ":"
			if locs := segAbsRE.FindAllStringIndex(args, -1); len(locs) == 1 && strings.HasPrefix(args[locs[0][0]:], seg) {
				args = args[:locs[0][0]] + fmt.Sprintf("%s0x%x", seg, uint64(int64(int32(mem.Disp)))) + args[locs[0][1]:]
			}
		}
		return args
	}
	if locs := memRE.FindAllStringIndex(args, -1); len(locs) == 1 {
		args = args[:locs[0][0]] + gnuMem(*mem, x86HasDisp(code)) + args[locs[0][1]:]
	}
	return args
}

// immMask is the mask of the operand size an immediate is written in.
func immMask(inst x86asm.Inst) uint64 {
	bits := inst.DataSize
	if inst.MemBytes == 1 {
		bits = 8
	}
	for _, a := range inst.Args {
		if r, ok := a.(x86asm.Reg); ok && r >= x86asm.AL && r <= x86asm.R15B {
			bits = 8
		}
	}
	if bits <= 0 || bits >= 64 {
		return ^uint64(0)
	}
	return 1<<bits - 1
}

func gnuMem(m x86asm.Mem, hasDisp bool) string {
	var b strings.Builder
	if m.Segment != 0 {
		b.WriteString("%" + strings.ToLower(m.Segment.String()) + ":")
	}
	d := int64(int32(m.Disp)) // a displacement is 32 bits at most, sign-extended
	switch {
	case d < 0:
		fmt.Fprintf(&b, "-0x%x", -d)
	case d > 0 || hasDisp:
		fmt.Fprintf(&b, "0x%x", d)
	}
	b.WriteByte('(')
	if m.Base != 0 {
		b.WriteString("%" + strings.ToLower(m.Base.String()))
	}
	if m.Index != 0 {
		fmt.Fprintf(&b, ",%%%s,%d", strings.ToLower(m.Index.String()), max(m.Scale, 1))
	}
	b.WriteByte(')')
	return b.String()
}

// x86RIPForm says whether the ModRM of the instruction in code is RIP-relative (mod 00,
// r/m 101).
func x86RIPForm(code []byte) bool {
	i := x86ModRM(code)
	return i >= 0 && code[i]&0xc7 == 0x05
}

// x86HasDisp says whether the ModRM of the instruction in code has a displacement field
// (mod 01 or 10, or disp32 in place of a base).
func x86HasDisp(code []byte) bool {
	i := x86ModRM(code)
	if i < 0 {
		return false
	}
	modrm := code[i]
	mod, rm := modrm>>6, modrm&7
	switch {
	case mod == 1 || mod == 2:
		return true
	case mod == 0 && rm == 5:
		return true
	case mod == 0 && rm == 4 && i+1 < len(code):
		return code[i+1]&7 == 5 // SIB without a base: disp32
	}
	return false
}

// x86ModRM is the offset of the ModRM byte of the instruction in code (-1: past the end).
func x86ModRM(code []byte) int {
	i := 0
	for i < len(code) && i < 14 {
		switch code[i] {
		case 0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65:
			i++
			continue
		}
		break
	}
	if i < len(code) && code[i]&0xf0 == 0x40 {
		i++
	}
	if i >= len(code) {
		return -1
	}
	switch code[i] {
	case 0xc5:
		i += 3
	case 0xc4:
		i += 4
	case 0x62:
		i += 5
	case 0x0f:
		i += 2
		if i-1 < len(code) && (code[i-1] == 0x38 || code[i-1] == 0x3a) {
			i++
		}
	default:
		i++
	}
	if i >= len(code) {
		return -1
	}
	return i
}

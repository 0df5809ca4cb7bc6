package disasm

import (
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
)

func decodeARM64(pc uint64, code []byte, sym Symbolizer) Inst {
	if len(code) < 4 {
		return byteData(pc, code)
	}
	lock.Lock()
	inst, err := arm64asm.Decode(code[:4])
	var text string
	if err == nil {
		text = arm64asm.GNUSyntax(inst)
	}
	lock.Unlock()
	if err != nil || text == "" || strings.HasPrefix(text, "?") {
		w := binary.LittleEndian.Uint32(code)
		if op, args, ok := arm64Extra(w); ok {
			return Inst{Len: 4, Op: op, Text: pad(op, args), Class: armClass(op, args)}
		}
		return dataInst(pc, ".inst", fmt.Sprintf("0x%08x", w), 4)
	}
	op, args, _ := strings.Cut(text, " ")
	op = strings.ToLower(op)
	if op == "hint" {
		// objdump names the pointer-authentication and branch-target hints.
		var n int
		if _, err := fmt.Sscanf(args, "#0x%x", &n); err == nil {
			if n >= 0 && n < len(arm64Hints) && arm64Hints[n] != "" {
				name := arm64Hints[n]
				op, args, _ = strings.Cut(name, " ")
			}
		}
	}
	in := Inst{Len: 4, Op: op, Class: armClass(op, args)}
	for _, a := range inst.Args {
		rel, ok := a.(arm64asm.PCRel)
		if !ok {
			continue
		}
		t := pc + uint64(int64(rel))
		if inst.Op == arm64asm.ADRP {
			t = pc&^0xfff + uint64(int64(rel))
		}
		in.Target, in.HasTarget = t, in.Class&(Branch|Call) != 0
		args = replaceRel(args, t, sym)
	}
	in.Text = pad(op, strings.ReplaceAll(args, ",#", ", #")) // objdump: [sp, #-112]!
	return in
}

// arm64Hints are objdump's names of HINT #n (an array, not a map: static data, no work at
// package init).
var arm64Hints = [...]string{7: "xpaclri", 8: "pacia1716", 10: "pacib1716", 12: "autia1716",
	14: "autib1716", 16: "esb", 17: "psb csync", 18: "tsb csync", 20: "csdb", 24: "paciaz",
	25: "paciasp", 26: "pacibz", 27: "pacibsp", 28: "autiaz", 29: "autiasp", 30: "autibz",
	31: "autibsp", 32: "bti", 34: "bti c", 36: "bti j", 38: "bti jc"}

// replaceRel puts the absolute target where x/arch's GNU syntax wrote ".+0x.." or ".-0x..".
func replaceRel(args string, t uint64, sym Symbolizer) string {
	i := strings.Index(args, ".+0x")
	if i < 0 {
		i = strings.Index(args, ".-0x")
	}
	if i < 0 {
		return args
	}
	j := i + 4
	for j < len(args) && strings.IndexByte("0123456789abcdefABCDEF", args[j]) >= 0 {
		j++
	}
	return args[:i] + target(t, sym) + args[j:]
}

// arm64Extra decodes what arm64asm does not: UDF (Go pads functions with zero words) and
// the LSE atomics (ldadd, ldclr, ldeor, ldset, ld{s,u}{max,min}, swp, cas and their st aliases).
func arm64Extra(w uint32) (op, args string, ok bool) {
	size := w >> 30
	r := func(n uint32, x bool) string {
		switch {
		case n == 31 && x:
			return "xzr"
		case n == 31:
			return "wzr"
		case x:
			return fmt.Sprintf("x%d", n)
		}
		return fmt.Sprintf("w%d", n)
	}
	base := func(n uint32) string {
		if n == 31 {
			return "[sp]"
		}
		return fmt.Sprintf("[x%d]", n)
	}
	bh := [4]string{"b", "h", "", ""}[size]
	rs, rn, rt := w>>16&31, w>>5&31, w&31
	switch {
	case w>>16 == 0:
		return "udf", fmt.Sprintf("#%d", w&0xffff), true
	case w>>27&7 == 7 && w>>24&7 == 0 && w>>21&1 == 1 && w>>10&3 == 0: // atomic memory operations
		a, l := w>>23&1, w>>22&1
		o3, opc := w>>15&1, w>>12&7
		var name string
		switch {
		case o3 == 0:
			name = [8]string{"add", "clr", "eor", "set", "smax", "smin", "umax", "umin"}[opc]
		case opc == 0:
			name = "swp"
		default:
			return "", "", false
		}
		sfx := map[uint32]string{0: "", 1: "l"}[l]
		if name != "swp" && rt == 31 && a == 0 {
			return "st" + name + sfx + bh, fmt.Sprintf("%s, %s", r(rs, size == 3), base(rn)), true
		}
		if name != "swp" {
			name = "ld" + name
		}
		if a == 1 {
			sfx = "a" + sfx
		}
		return name + sfx + bh, fmt.Sprintf("%s, %s, %s", r(rs, size == 3), r(rt, size == 3), base(rn)), true
	case w>>23&0x7f == 0x11 && w>>21&1 == 1 && w>>10&31 == 31: // CAS
		sfx := ""
		if w>>22&1 == 1 {
			sfx += "a"
		}
		if w>>15&1 == 1 {
			sfx += "l"
		}
		return "cas" + sfx + bh, fmt.Sprintf("%s, %s, %s", r(rs, size == 3), r(rt, size == 3), base(rn)), true
	}
	return "", "", false
}

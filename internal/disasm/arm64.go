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
		return dataInst(pc, ".inst", fmt.Sprintf("0x%08x", binary.LittleEndian.Uint32(code)), 4)
	}
	op, args, _ := strings.Cut(text, " ")
	op = strings.ToLower(op)
	if op == "hint" {
		// objdump names the pointer-authentication and branch-target hints.
		var n int
		if _, err := fmt.Sscanf(args, "#0x%x", &n); err == nil {
			if name, ok := arm64Hints[n]; ok {
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
	in.Text = pad(op, args)
	return in
}

var arm64Hints = map[int]string{7: "xpaclri", 8: "pacia1716", 10: "pacib1716", 12: "autia1716",
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

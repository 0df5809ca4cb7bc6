package disasm

import "fmt"

// armExtra decodes A32 encodings armasm does not know (VFP load/store multiple, the core
// register forms of vmov, the fused multiply-accumulates, post-indexed register loads and
// stores), with cond=AL given without a suffix. The Thumb decoder uses it for T32 VFP too.
func armExtra(w uint32) (op, args string, ok bool) {
	cond := condNames[w>>28]
	if w>>28 == 15 {
		return "", "", false
	}
	d := func(v, hi uint32) string { return fmt.Sprintf("d%d", hi<<4|v) }
	s := func(v, lo uint32) string { return fmt.Sprintf("s%d", v<<1|lo) }
	switch {
	case w>>25&7 == 6 && w>>9&7 == 5 && (w>>23&3 == 1 || w>>23&3 == 2 && w>>21&1 == 1): // VLDM, VSTM
		p, u, wb, l, rn := w>>24&1, w>>23&1, w>>21&1, w>>20&1, w>>16&15
		imm := w & 0xff
		var list string
		if w>>8&1 == 1 {
			first := w>>22&1<<4 | w>>12&15
			if imm/2 == 0 {
				return "", "", false
			}
			list = rangeList("d", first, imm/2)
		} else {
			first := w>>12&15<<1 | w>>22&1
			if imm == 0 {
				return "", "", false
			}
			list = rangeList("s", first, imm)
		}
		if rn == 13 && wb == 1 && (l == 1 && p == 0 && u == 1 || l == 0 && p == 1 && u == 0) {
			if l == 1 {
				return "vpop" + cond, list, true
			}
			return "vpush" + cond, list, true
		}
		op = map[uint32]string{0: "vstm", 1: "vldm"}[l] + map[uint32]string{0: "db", 1: "ia"}[u] + cond
		bang := ""
		if wb == 1 {
			bang = "!"
		}
		return op, fmt.Sprintf("%s%s, %s", reg(int(rn)), bang, list), true
	case w&0x0fe00f7f == 0x0e000a10: // VMOV core <-> single
		rt, vn, n := w>>12&15, w>>16&15, w>>7&1
		if w>>20&1 == 1 {
			return "vmov" + cond, fmt.Sprintf("%s, %s", reg(int(rt)), s(vn, n)), true
		}
		return "vmov" + cond, fmt.Sprintf("%s, %s", s(vn, n), reg(int(rt))), true
	case w&0x0fe00fd0 == 0x0c400b10: // VMOV two core <-> double
		rt, rt2, vm, m := w>>12&15, w>>16&15, w&15, w>>5&1
		if w>>20&1 == 1 {
			return "vmov" + cond, fmt.Sprintf("%s, %s, %s", reg(int(rt)), reg(int(rt2)), d(vm, m)), true
		}
		return "vmov" + cond, fmt.Sprintf("%s, %s, %s", d(vm, m), reg(int(rt)), reg(int(rt2))), true
	case w&0x0fb00e10 == 0x0ea00a00 || w&0x0fb00e10 == 0x0e900a00: // VFMA, VFMS, VFNMA, VFNMS
		base := map[uint32]string{0: "vfma", 1: "vfms"}[w>>6&1]
		if w>>21&1 == 0 {
			base = map[uint32]string{0: "vfnms", 1: "vfnma"}[w>>6&1]
		}
		vd, vn, vm := w>>12&15, w>>16&15, w&15
		D, N, M := w>>22&1, w>>7&1, w>>5&1
		if w>>8&1 == 1 {
			return base + cond + ".f64", fmt.Sprintf("%s, %s, %s", d(vd, D), d(vn, N), d(vm, M)), true
		}
		return base + cond + ".f32", fmt.Sprintf("%s, %s, %s", s(vd, D), s(vn, N), s(vm, M)), true
	case w>>24&15 == 14 && w>>4&1 == 1 && w>>9&7 != 5: // MRC, MCR (not coprocessors 10, 11: VFP, NEON)
		op = "mcr"
		if w>>20&1 == 1 {
			op = "mrc"
		}
		return op + cond, fmt.Sprintf("%d, %d, %s, cr%d, cr%d, {%d}", w>>8&15, w>>21&7, reg(int(w>>12&15)),
			w>>16&15, w&15, w>>5&7), true
	case w>>25&7 == 3 && w>>4&1 == 0 && w>>24&1 == 0: // LDR/STR(B) register, post-indexed
		l, b, u := w>>20&1, w>>22&1, w>>23&1
		op = [2][2]string{{"str", "strb"}, {"ldr", "ldrb"}}[l][b]
		if w>>21&1 == 1 {
			op += "t"
		}
		sign := ""
		if u == 0 {
			sign = "-"
		}
		return op + cond, fmt.Sprintf("%s, [%s], %s%s%s", reg(int(w>>12&15)), reg(int(w>>16&15)), sign,
			reg(int(w&15)), shiftText(int(w>>5&3), int(w>>7&31))), true
	}
	return "", "", false
}

// rangeList is objdump's register range: {d8} or {d8-d15}.
func rangeList(kind string, first, n uint32) string {
	if n == 1 {
		return fmt.Sprintf("{%s%d}", kind, first)
	}
	return fmt.Sprintf("{%s%d-%s%d}", kind, first, kind, first+n-1)
}

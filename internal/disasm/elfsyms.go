package disasm

import (
	"debug/elf"
	"encoding/binary"
	"sort"
	"strings"
)

// ELFSymbols is objdump's naming of addresses in f, for branch targets and the "# addr
// <sym+off>" comments of PC-relative operands: every named symbol of the file (functions,
// objects, labels; not sections, files or undefined ones, nor ARM mapping symbols), plus
// a "name@plt" for each PLT entry (x86-64 and arm64), a GOT slot by the symbol its
// dynamic relocation names ("name@VERSION"), and for another address the nearest
// symbol at or below it, whatever its section and size; among symbols at one address the
// one objdump prefers (compare_symbols: functions, then objects, global before weak before
// local, the larger, then by name).
func ELFSymbols(f *elf.File) Symbolizer {
	syms, err := f.Symbols()
	if err != nil || len(syms) == 0 {
		syms, _ = f.DynamicSymbols()
	}
	var all []esym
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if s.Name == "" || s.Section == elf.SHN_UNDEF || s.Section == elf.SHN_COMMON ||
			typ == elf.STT_SECTION || typ == elf.STT_FILE {
			continue
		}
		v := s.Value
		if f.Machine == elf.EM_ARM {
			if isMappingSymbol(s.Name) {
				continue
			}
			v &^= 1 // the Thumb bit
		}
		if f.Machine == elf.EM_AARCH64 && isMappingSymbol(s.Name) {
			continue
		}
		all = append(all, esym{name: s.Name, value: v, size: s.Size, typ: typ, bind: elf.ST_BIND(s.Info)})
	}
	slots, got := gotSlots(f)
	all = append(all, pltSymbols(f, slots)...)
	sort.SliceStable(all, func(i, j int) bool { return symLess(&all[i], &all[j]) })
	return func(a uint64) (string, uint64, bool) {
		if name, ok := got[a]; ok {
			return name, a, true // a GOT slot: the symbol its dynamic relocation names
		}
		i := sort.Search(len(all), func(i int) bool { return all[i].value > a }) - 1
		if i < 0 {
			return "", 0, false
		}
		for i > 0 && all[i-1].value == all[i].value {
			i-- // the preferred one of those at this address
		}
		return all[i].name, all[i].value, true
	}
}

type esym struct {
	name        string
	value, size uint64
	typ         elf.SymType
	bind        elf.SymBind
	synthetic   bool
}

// symLess is objdump's compare_symbols for the symbols of one file.
func symLess(a, b *esym) bool {
	if a.value != b.value {
		return a.value < b.value
	}
	rank := func(s *esym) [4]int {
		var r [4]int
		if s.typ != elf.STT_FUNC {
			r[0] = 1
		}
		if s.typ != elf.STT_OBJECT {
			r[1] = 1
		}
		switch s.bind {
		case elf.STB_GLOBAL:
		case elf.STB_LOCAL:
			r[2] = 2
		default: // weak
			r[2] = 1
		}
		if strings.HasPrefix(s.name, ".") {
			r[3] = 1
		}
		return r
	}
	ra, rb := rank(a), rank(b)
	for k := 0; k < 3; k++ {
		if ra[k] != rb[k] {
			return ra[k] < rb[k]
		}
	}
	as, bs := a.size, b.size
	if a.synthetic {
		as = 0
	}
	if b.synthetic {
		bs = 0
	}
	if as != bs {
		return as > bs
	}
	if ra[3] != rb[3] {
		return ra[3] < rb[3]
	}
	return a.name < b.name
}

// isMappingSymbol: ARM's $a, $t, $d and arm64's $x, $d (with an optional ".suffix").
func isMappingSymbol(name string) bool {
	if len(name) < 2 || name[0] != '$' {
		return false
	}
	switch name[1] {
	case 'a', 't', 'd', 'x':
		return len(name) == 2 || name[2] == '.'
	}
	return false
}

// pltSymbols names the PLT entries as objdump's synthetic symbols do: each entry's
// indirect jump reads a GOT slot, and the relocation of that slot names the function.
func pltSymbols(f *elf.File, slots map[uint64]string) []esym {
	if len(slots) == 0 {
		return nil
	}
	var out []esym
	for _, sec := range f.Sections {
		if !strings.HasPrefix(sec.Name, ".plt") || sec.Type != elf.SHT_PROGBITS {
			continue
		}
		code, err := sec.Data()
		if err != nil {
			continue
		}
		switch f.Machine {
		case elf.EM_X86_64:
			out = append(out, x86PLT(sec, code, slots)...)
		case elf.EM_AARCH64:
			out = append(out, arm64PLT(sec, code, slots, f.ByteOrder)...)
		}
	}
	return out
}

// gotSlots maps the GOT addresses that dynamic relocations fill to their symbols' names,
// plain and as objdump names the slot ("name@VERSION").
func gotSlots(f *elf.File) (slots, versioned map[uint64]string) {
	dyn, err := f.DynamicSymbols()
	if err != nil {
		return nil, nil
	}
	slots, versioned = map[uint64]string{}, map[uint64]string{}
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_RELA || sec.Entsize != 24 {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			continue
		}
		for b := data; len(b) >= 24; b = b[24:] {
			off, info := f.ByteOrder.Uint64(b), f.ByteOrder.Uint64(b[8:])
			if i := int(info >> 32); i > 0 && i <= len(dyn) && dyn[i-1].Name != "" {
				s := dyn[i-1]
				slots[off], versioned[off] = s.Name, s.Name
				if s.Version != "" {
					versioned[off] = s.Name + "@" + s.Version
				}
			}
		}
	}
	return slots, versioned
}

// x86PLT finds the jmp *disp(%rip) of each PLT entry (16 bytes; 8 in .plt.got without
// IBT) and names the entry by the GOT slot it reads.
func x86PLT(sec *elf.Section, code []byte, slots map[uint64]string) []esym {
	size := uint64(16)
	if sec.Entsize != 0 {
		size = sec.Entsize
	}
	var out []esym
	seen := map[uint64]bool{}
	for i := 0; i+6 <= len(code); i++ {
		if code[i] != 0xff || code[i+1] != 0x25 {
			continue
		}
		disp := int32(binary.LittleEndian.Uint32(code[i+2:]))
		got := sec.Addr + uint64(i) + 6 + uint64(int64(disp))
		name, ok := slots[got]
		entry := sec.Addr + uint64(i)/size*size
		if !ok || seen[entry] {
			continue
		}
		seen[entry] = true
		out = append(out, esym{name: name + "@plt", value: entry, typ: elf.STT_FUNC, bind: elf.STB_GLOBAL, synthetic: true})
	}
	return out
}

// arm64PLT finds each PLT entry's adrp x16 / ldr x17, [x16, #off] and names the entry by
// the GOT slot it loads (entries are 16 bytes; PLT0 is 32).
func arm64PLT(sec *elf.Section, code []byte, slots map[uint64]string, bo binary.ByteOrder) []esym {
	var out []esym
	for i := 0; i+8 <= len(code); i += 4 {
		adrp, ldr := bo.Uint32(code[i:]), bo.Uint32(code[i+4:])
		if adrp&0x9f00001f != 0x90000010 || ldr&0xffc003ff != 0xf9400211 {
			continue // not adrp x16 / ldr x17, [x16, #imm]
		}
		pc := sec.Addr + uint64(i)
		imm := int64(adrp>>29&3|adrp>>3&0x1ffffc) << 43 >> 31 // immhi:immlo << 12, signed
		got := pc&^0xfff + uint64(imm) + uint64(ldr>>10&0xfff)*8
		if name, ok := slots[got]; ok {
			out = append(out, esym{name: name + "@plt", value: pc, typ: elf.STT_FUNC, bind: elf.STB_GLOBAL, synthetic: true})
		}
	}
	return out
}

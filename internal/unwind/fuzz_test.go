package unwind

import (
	"debug/elf"
	"encoding/binary"
	"testing"

	"github.com/pmc-tools/pmc/internal/symbol"
)

// FuzzUnwind: any tables, stack copy and registers give a chain of at most MaxFrames
// frames and a reason, never a panic or an endless loop.
func FuzzUnwind(f *testing.F) {
	good := ehFrame{addr: 0x10000, ra: 16, initial: x86Initial, fdes: []fdeSpec{
		{0x1000, 0x100, nil},
		{0x2000, 0x100, []byte{cfaAdvanceLoc | 1, cfaDefCFAOffset, 16, cfaOffset | 3, 2, cfaRememberState, cfaRestoreState}},
		{0x3000, 0x100, []byte{cfaUndefined, 16}},
	}}.bytes()
	plt := ehFrame{addr: 0x10000, ra: 16, initial: x86Initial, fdes: []fdeSpec{{0x1000, 0x100,
		[]byte{cfaDefCFAExpression, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22}}}}.bytes()
	arm64 := ehFrame{addr: 0x10000, ra: 30, initial: []byte{cfaDefCFA, 31, 0}, fdes: []fdeSpec{
		{0x1000, 0x100, []byte{cfaAdvanceLoc | 1, cfaDefCFAOffset, 16, cfaOffset | 29, 2, cfaOffset | 30, 1, cfaGNUWindowSave}}}}.bytes()
	idx := exidxOf([]uint64{0x1000, 0x2000}, []uint32{0x80a8b0b0, 0}, []int{-1, 0})
	tab := binary.LittleEndian.AppendUint32(nil, 0x810001aa)
	stack := stackOf(0x2020, 0xaaaa, 0xbbbb, 0x3030, 0, 0)
	f.Add(uint8(X86_64), good, []byte(nil), []byte(nil), []byte(nil), stack, uint64(0x1010), uint64(0x7000))
	f.Add(uint8(X86_64), plt, []byte(nil), []byte(nil), []byte(nil), stack, uint64(0x100c), uint64(0x7000))
	f.Add(uint8(ARM64), arm64, []byte(nil), []byte(nil), []byte(nil), stack, uint64(0x1004), uint64(0x7000))
	f.Add(uint8(ARM), []byte(nil), good, idx, tab, stack32(0x44, 0x2031, 0, 0, 4, 5, 6, 0x3001, 0, 0), uint64(0x1004), uint64(0x7000))
	f.Fuzz(func(t *testing.T, arch uint8, frame, debugFrame, exidx, extab, stack []byte, pc, sp uint64) {
		a := Arch(arch % 4)
		machine := archs[a].machine
		class := elf.ELFCLASS64
		if a == ARM {
			class = elf.ELFCLASS32
		}
		tables := NewTables(&symbol.FrameSections{Machine: machine, Class: class,
			EHFrame: symbol.Section{Addr: 0x10000, Data: frame}, DebugFrame: symbol.Section{Data: debugFrame},
			ARMExidx: symbol.Section{Addr: exidxAddr, Data: exidx}, ARMExtab: symbol.Section{Addr: extabAddr, Data: extab}})
		var r Regs
		if a != ArchUnknown {
			r.Set(archs[a].pc, pc)
			r.Set(archs[a].sp, sp)
			r.Set(archs[a].ra, pc^sp)
		}
		find := func(addr uint64) (Code, bool) { return Code{Tables: tables, Rel: addr, Object: "/fuzz"}, addr < 1<<20 }
		out, stop := Unwind(a, r, stack, find, nil)
		if len(out) > MaxFrames {
			t.Fatalf("%d frames", len(out))
		}
		_ = stop.String()
	})
}

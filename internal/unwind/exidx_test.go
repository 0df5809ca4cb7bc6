package unwind

import (
	"debug/elf"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/pmc-tools/pmc/internal/symbol"
)

const (
	exidxAddr = 0x8000
	extabAddr = 0x8800
)

// exidxOf builds an .ARM.exidx at exidxAddr: one entry per function start, each word the
// entry's second word as is, or, for table (an index in extab), a prel31 to extab's word.
func exidxOf(fns []uint64, second []uint32, table []int) []byte {
	le := binary.LittleEndian
	var b []byte
	prel := func(to, at uint64) uint32 { return uint32(int64(to)-int64(at)) & 0x7fffffff }
	for i, fn := range fns {
		at := uint64(exidxAddr + 8*i)
		b = le.AppendUint32(b, prel(fn, at))
		w := second[i]
		if table[i] >= 0 {
			w = prel(extabAddr+uint64(4*table[i]), at+4)
		}
		b = le.AppendUint32(b, w)
	}
	return b
}

func armTables(idx []byte, tab []byte) *Tables {
	return NewTables(&symbol.FrameSections{Machine: elf.EM_ARM, Class: elf.ELFCLASS32,
		ARMExidx: symbol.Section{Addr: exidxAddr, Data: idx}, ARMExtab: symbol.Section{Addr: extabAddr, Data: tab}})
}

func stack32(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// TestEHABIChain: a leaf with no frame (finish: pc = lr, a Thumb return address), a
// function that pushed {r4, lr} (compact, personality 0), one with 8 bytes of locals under
// {r4-r6, lr} (a table entry, personality 1), and one marked EXIDX_CANTUNWIND: the outermost.
func TestEHABIChain(t *testing.T) {
	fns := []uint64{0x1000, 0x2000, 0x3000, 0x4000}
	idx := exidxOf(fns, []uint32{0x80a8b0b0, exidxCantUnwind, 0, 0x80b0b0b0}, []int{-1, -1, 0, -1})
	tab := binary.LittleEndian.AppendUint32(nil, 0x810001aa) // Lu16, no more words: vsp += 8; pop {r4-r6, lr}
	tables := armTables(idx, tab)
	var r Regs
	r.Set(15, 0x4004)
	r.Set(13, 0x7000)
	r.Set(14, 0x1021)
	stack := stack32(0x44, 0x3031, 0, 0, 0x4, 0x5, 0x6, 0x2041, 0, 0)
	find := func(a uint64) (Code, bool) { return Code{Tables: tables, Rel: a}, a >= 0x1000 && a < 0x5000 }
	out, stop := Unwind(ARM, r, stack, find, nil)
	want := []uint64{0x4004, 0x101f, 0x302f, 0x203f}
	if !slices.Equal(out, want) || stop.Reason != End {
		t.Fatalf("frames %#x, stop %v; want %#x, the outermost frame", out, stop, want)
	}
}

// TestEHABIBad: a refusal to unwind (pop of an empty mask), a spare instruction, a table
// entry outside .ARM.extab and a pop past the stack copy each end the chain with a reason.
func TestEHABIBad(t *testing.T) {
	for name, c := range map[string]struct {
		second uint32
		table  []byte
		stack  []byte
		want   Reason
	}{
		"refuse":             {0x808000b0, nil, stack32(0, 0, 0), End},
		"spare":              {0x80b4b0b0, nil, stack32(0, 0, 0), BadTables},
		"outside extab":      {0x00000100, nil, stack32(0, 0, 0), BadTables},
		"stack copy end":     {0x80a8b0b0, nil, stack32(0), StackEnd},
		"words past the end": {0, binary.LittleEndian.AppendUint32(nil, 0x8102b0b0), stack32(0, 0, 0), BadTables},
	} {
		second, table := []uint32{c.second}, []int{-1}
		if c.table != nil {
			table = []int{0}
		}
		tables := armTables(exidxOf([]uint64{0x1000}, second, table), c.table)
		var r Regs
		r.Set(15, 0x1004)
		r.Set(13, 0x7000)
		r.Set(14, 0x1105)
		out, stop := Unwind(ARM, r, c.stack, func(a uint64) (Code, bool) { return Code{Tables: tables, Rel: a}, true }, nil)
		if len(out) != 1 || stop.Reason != c.want {
			t.Errorf("%s: frames %#x, stop %v (%d); want the sampled frame and reason %d", name, out, stop, stop.Reason, c.want)
		}
	}
}

// TestEHABIOps: the vsp arithmetic of the less common instructions.
func TestEHABIOps(t *testing.T) {
	for _, c := range []struct {
		ops     []byte
		wantSP  uint64
		popped4 bool
	}{
		{[]byte{0x02}, 0x7000 + 12, false},              // vsp += (2<<2)+4
		{[]byte{0x41}, 0x7000 - 8, false},               // vsp -= (1<<2)+4
		{[]byte{0xb2, 0x01}, 0x7000 + 0x204 + 4, false}, // vsp += 0x204 + (1<<2)
		{[]byte{0xb3, 0x01}, 0x7000 + 16 + 4, false},    // VFP d0-d1, FSTMFDX
		{[]byte{0xc9, 0x02}, 0x7000 + 24, false},        // VFP d0-d2, FSTMFDD
		{[]byte{0xd1}, 0x7000 + 16, false},              // VFP d8-d9
		{[]byte{0xb1, 0x03}, 0x7000 + 8, false},         // pop {r0, r1}
		{[]byte{0xa1}, 0x7000 + 8, true},                // pop {r4, r5}
		{[]byte{0x97, 0xb0}, 0x9000, false},             // vsp = r7
		{[]byte{0x80, 0x01}, 0x7000 + 4, true},          // pop {r4} by mask
	} {
		var r Regs
		r.Set(13, 0x7000)
		r.Set(14, 0x1234)
		r.Set(7, 0x9000)
		mem := func(addr uint64, size int) (uint64, bool) { return 0xabc, true }
		out, err := ehabiStep(c.ops, &r, mem)
		sp, _ := out.Get(13)
		r4, _ := out.Get(4)
		pc, _ := out.Get(15)
		if err != nil || sp != c.wantSP || (r4 == 0xabc) != c.popped4 || pc != 0x1234 {
			t.Errorf("ops %x: sp %#x, r4 %#x, pc %#x, err %v; want sp %#x", c.ops, sp, r4, pc, err, c.wantSP)
		}
	}
}

package unwind

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/pmc-tools/pmc/internal/symbol"
)

// ehFrame assembles an .eh_frame at addr: one CIE (code alignment 1, data alignment -8,
// return address column ra, pc-relative sdata4 pointers, initial instructions) and one FDE
// per function (start, size, instructions), then the terminator.
type ehFrame struct {
	addr    uint64
	ra      byte
	initial []byte
	fdes    []fdeSpec
}

type fdeSpec struct {
	start, size uint64
	insns       []byte
}

func (e ehFrame) bytes() []byte {
	le := binary.LittleEndian
	var b []byte
	cie := []byte{0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, e.ra, 1, peSdata4 | pePCRel}
	cie = append(cie, e.initial...)
	for len(cie)%4 != 0 {
		cie = append(cie, cfaNop)
	}
	b = le.AppendUint32(b, uint32(len(cie)))
	b = append(b, cie...)
	for _, f := range e.fdes {
		at := len(b)
		body := le.AppendUint32(nil, uint32(at+4)) // the CIE pointer: back to offset 0
		here := e.addr + uint64(at+4+4)
		body = le.AppendUint32(body, uint32(int32(int64(f.start)-int64(here))))
		body = le.AppendUint32(body, uint32(f.size))
		body = append(body, 0) // no augmentation data
		body = append(body, f.insns...)
		for (len(body)+4)%8 != 0 {
			body = append(body, cfaNop)
		}
		b = le.AppendUint32(b, uint32(len(body)))
		b = append(b, body...)
	}
	return le.AppendUint32(b, 0)
}

// x86 CIE: CFA = rsp+8, the return address at CFA-8.
var x86Initial = []byte{cfaDefCFA, 7, 8, cfaOffset | 16, 1}

// stackOf lays out words from base.
func stackOf(words ...uint64) []byte {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

// oneObject is a Finder of one object mapped at its own addresses.
func oneObject(t *Tables) Finder {
	return func(addr uint64) (Code, bool) {
		if addr < 0x1000 || addr >= 0x9000 {
			return Code{}, false
		}
		return Code{Tables: t, Rel: addr, Object: "/obj"}, true
	}
}

func x86Tables(fdes ...fdeSpec) *Tables {
	e := ehFrame{addr: 0x10000, ra: 16, initial: x86Initial, fdes: fdes}
	return NewTables(&symbol.FrameSections{Machine: elf.EM_X86_64, Class: elf.ELFCLASS64,
		EHFrame: symbol.Section{Addr: e.addr, Data: e.bytes()}})
}

func regsX86(pc, sp uint64) Regs {
	var r Regs
	r.Set(16, pc)
	r.Set(7, sp)
	return r
}

// TestCFIChain: leaf (no frame) <- mid (push; sub 8) <- top, whose CFI marks the return
// address undefined (the outermost frame, as _start's). Callers are reported at their call
// (return address - 1), and the chain ends normally.
func TestCFIChain(t *testing.T) {
	tab := x86Tables(
		fdeSpec{0x1000, 0x100, nil}, // leaf: the CIE's rules
		// mid: push %rbx at +1 (CFA rsp+16, rbx at CFA-16), sub $8 at +5 (CFA rsp+24).
		fdeSpec{0x2000, 0x100, []byte{cfaAdvanceLoc | 1, cfaDefCFAOffset, 16, cfaOffset | 3, 2, cfaAdvanceLoc | 4, cfaDefCFAOffset, 24}},
		fdeSpec{0x3000, 0x100, []byte{cfaUndefined, 16}}, // top: no caller
	)
	// leaf at 0x1010, sp 0x7000: [sp] = return into mid at 0x2020; mid's frame: 8 bytes of
	// locals, saved rbx, return into top at 0x3030.
	stack := stackOf(0x2020, 0xaaaa, 0xbbbb, 0x3030, 0, 0)
	out, stop := Unwind(X86_64, regsX86(0x1010, 0x7000), stack, oneObject(tab), nil)
	want := []uint64{0x1010, 0x201f, 0x302f}
	if !slices.Equal(out, want) || stop.Reason != End {
		t.Fatalf("frames %#x, stop %v; want %#x, the outermost frame", out, stop, want)
	}
}

// TestCFIStackEnd: a return address beyond the copy ends the chain there; perf's reader
// leaves the copy's last word out of reach, and so does pmc's.
func TestCFIStackEnd(t *testing.T) {
	tab := x86Tables(fdeSpec{0x1000, 0x100, nil}, fdeSpec{0x2000, 0x100, nil})
	for _, c := range []struct {
		stack []byte
		want  []uint64
	}{
		{stackOf(0x2020), []uint64{0x1010}},            // the only word: the last, not read
		{stackOf(0x2020, 0), []uint64{0x1010, 0x201f}}, // read; mid's caller is not
		{stackOf(0x2020)[:5], []uint64{0x1010}},        // a copy shorter than a word
	} {
		out, stop := Unwind(X86_64, regsX86(0x1010, 0x7000), c.stack, oneObject(tab), nil)
		if !slices.Equal(out, c.want) || stop.Reason != StackEnd {
			t.Errorf("stack of %d bytes: frames %#x, stop %v; want %#x, the end of the copy", len(c.stack), out, stop, c.want)
		}
	}
}

// TestCFIPLT: the x86-64 PLT's CFA expression (rsp+8, +16 past the 11th byte of an entry).
func TestCFIPLT(t *testing.T) {
	expr := []byte{0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22} // breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus
	plt := fdeSpec{0x1000, 0x100, append([]byte{cfaDefCFAExpression, byte(len(expr))}, expr...)}
	tab := x86Tables(plt, fdeSpec{0x2000, 0x100, []byte{cfaUndefined, 16}})
	for _, c := range []struct {
		pc    uint64
		stack []byte
	}{
		{0x1004, stackOf(0x2020, 0)},       // bytes 0-10 of an entry: CFA = rsp+8
		{0x100c, stackOf(0, 0x2020, 0)},    // bytes 11-15 (after a push): CFA = rsp+16
		{0x101b, stackOf(0, 0x2020, 0, 0)}, // the next entry's 11th byte on
	} {
		out, stop := Unwind(X86_64, regsX86(c.pc, 0x7000), c.stack, oneObject(tab), nil)
		if want := []uint64{c.pc, 0x201f}; !slices.Equal(out, want) || stop.Reason != End {
			t.Errorf("pc %#x: frames %#x, stop %v; want %#x", c.pc, out, stop, want)
		}
	}
}

// TestCFIRememberRestore: an epilogue in the middle of a function (remember_state before
// it, restore_state after) gives the body's rules back.
func TestCFIRememberRestore(t *testing.T) {
	insns := []byte{
		cfaAdvanceLoc | 1, cfaDefCFAOffset, 16, // push at +0
		cfaAdvanceLoc | 3, cfaRememberState, cfaDefCFAOffset, 8, // +4: pop; ret
		cfaAdvanceLoc | 2, cfaRestoreState, // +6: the body again
	}
	tab := x86Tables(fdeSpec{0x1000, 0x100, insns}, fdeSpec{0x2000, 0x100, []byte{cfaUndefined, 16}})
	for _, c := range []struct {
		pc    uint64
		stack []byte
	}{
		{0x1002, stackOf(0, 0x2020, 0)},
		{0x1005, stackOf(0x2020, 0)},
		{0x1007, stackOf(0, 0x2020, 0)},
	} {
		out, _ := Unwind(X86_64, regsX86(c.pc, 0x7000), c.stack, oneObject(tab), nil)
		if want := []uint64{c.pc, 0x201f}; !slices.Equal(out, want) {
			t.Errorf("pc %#x: frames %#x, want %#x", c.pc, out, want)
		}
	}
}

// TestCFIReasons: what ends a chain early, and that nothing is invented past it.
func TestCFIReasons(t *testing.T) {
	tab := x86Tables(fdeSpec{0x1000, 0x100, nil})
	for _, c := range []struct {
		name  string
		pc    uint64
		stack []byte
		find  Finder
		want  Reason
		n     int
	}{
		{"no mapping for the caller", 0x1010, stackOf(0x9999, 0), oneObject(tab), NoMap, 2},
		{"no FDE for the caller", 0x1010, stackOf(0x5000, 0), oneObject(tab), NoEntry, 2},
		{"no tables", 0x1010, stackOf(0, 0), func(uint64) (Code, bool) { return Code{Object: "/x"}, true }, NoTables, 1},
		{"the same frame again", 0x1010, stackOf(0x1011, 0x1011, 0), func(a uint64) (Code, bool) {
			return Code{Tables: x86Tables(fdeSpec{0x1000, 0x100, []byte{cfaDefCFAOffset, 0, cfaSameValue, 16}}), Rel: a}, true
		}, Loop, 1},
	} {
		out, stop := Unwind(X86_64, regsX86(c.pc, 0x7000), c.stack, c.find, nil)
		if stop.Reason != c.want || len(out) != c.n {
			t.Errorf("%s: frames %#x, stop %v (%d); want %d frames and reason %d", c.name, out, stop, stop.Reason, c.n, c.want)
		}
		if stop.String() == "" {
			t.Errorf("%s: no text for the stop", c.name)
		}
	}
}

// TestCFIDepth: a chain of frames that each return into the next stops at 127.
func TestCFIDepth(t *testing.T) {
	tab := x86Tables(fdeSpec{0x1000, 0x1000, nil})
	var words []uint64
	for i := 0; i < 200; i++ {
		words = append(words, 0x1010+uint64(i))
	}
	out, stop := Unwind(X86_64, regsX86(0x1000, 0x7000), stackOf(words...), oneObject(tab), nil)
	if len(out) != MaxFrames || stop.Reason != Depth {
		t.Fatalf("%d frames, stop %v; want %d and the depth limit", len(out), stop, MaxFrames)
	}
}

// TestCorruptCFI: a damaged table is an error with a reason, never a panic or a caller.
func TestCorruptCFI(t *testing.T) {
	good := ehFrame{addr: 0x10000, ra: 16, initial: x86Initial, fdes: []fdeSpec{{0x1000, 0x100, nil}}}.bytes()
	for name, data := range map[string][]byte{
		"length past the end": func() []byte { b := append([]byte(nil), good...); b[0] = 0xff; return b }(),
		"unknown instruction": ehFrame{addr: 0x10000, ra: 16, initial: []byte{0x3f}, fdes: []fdeSpec{{0x1000, 0x100, nil}}}.bytes(),
		"restore without remember": ehFrame{addr: 0x10000, ra: 16, initial: x86Initial,
			fdes: []fdeSpec{{0x1000, 0x100, []byte{cfaRestoreState}}}}.bytes(),
		"return column out of range": ehFrame{addr: 0x10000, ra: 99, initial: x86Initial, fdes: []fdeSpec{{0x1000, 0x100, nil}}}.bytes(),
		"truncated":                  good[:20],
	} {
		tab := NewTables(&symbol.FrameSections{Machine: elf.EM_X86_64, Class: elf.ELFCLASS64,
			EHFrame: symbol.Section{Addr: 0x10000, Data: data}})
		out, stop := Unwind(X86_64, regsX86(0x1010, 0x7000), stackOf(0x1010, 0x1010, 0), oneObject(tab), nil)
		if len(out) != 1 || stop.Reason == End || stop.Reason == Depth {
			t.Errorf("%s: frames %#x, stop %v; want the sampled frame alone and a reason", name, out, stop)
		}
	}
}

// TestEHFrameHdr: the .eh_frame_hdr search table finds FDEs without indexing .eh_frame.
func TestEHFrameHdr(t *testing.T) {
	e := ehFrame{addr: 0x10000, ra: 16, initial: x86Initial,
		fdes: []fdeSpec{{0x1000, 0x100, nil}, {0x2000, 0x100, []byte{cfaUndefined, 16}}}}
	frame := e.bytes()
	// FDE offsets: the CIE is 4 + its length; each FDE here is 24 bytes.
	cieLen := int(binary.LittleEndian.Uint32(frame)) + 4
	hdrAddr := uint64(0x20000)
	le := binary.LittleEndian
	hdr := []byte{1, peSdata4 | pePCRel, peUdata4, peSdata4 | peDataRel}
	hdr = le.AppendUint32(hdr, uint32(int32(int64(e.addr)-int64(hdrAddr+4))))
	hdr = le.AppendUint32(hdr, 2)
	for i, f := range e.fdes {
		hdr = le.AppendUint32(hdr, uint32(int32(int64(f.start)-int64(hdrAddr))))
		hdr = le.AppendUint32(hdr, uint32(int32(int64(e.addr)+int64(cieLen+24*i)-int64(hdrAddr))))
	}
	tab := NewTables(&symbol.FrameSections{Machine: elf.EM_X86_64, Class: elf.ELFCLASS64,
		EHFrame: symbol.Section{Addr: e.addr, Data: frame}, EHFrameHdr: symbol.Section{Addr: hdrAddr, Data: hdr}})
	if tab.eh.hdr == nil {
		t.Fatal(".eh_frame_hdr not taken")
	}
	out, stop := Unwind(X86_64, regsX86(0x1010, 0x7000), stackOf(0x2020, 0), oneObject(tab), nil)
	if want := []uint64{0x1010, 0x201f}; !slices.Equal(out, want) || stop.Reason != End {
		t.Fatalf("frames %#x, stop %v; want %#x", out, stop, want)
	}
	if tab.eh.indexed {
		t.Error(".eh_frame was indexed although its header has a table")
	}
	if _, err := tab.eh.find(0x1500); !errors.Is(err, errNoFDE) {
		t.Errorf("an address between FDEs: %v, want no FDE", err)
	}
}

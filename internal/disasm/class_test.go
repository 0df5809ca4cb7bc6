package disasm

import (
	"encoding/hex"
	"strings"
	"testing"
)

// TestClasses: the class of real encodings, per architecture (what skid marks rely on).
func TestClasses(t *testing.T) {
	for _, c := range []struct {
		arch  Arch
		hex   string
		op    string
		class Class
	}{
		{X86_64, "488b10", "mov", Load},
		{X86_64, "488910", "mov", Store},
		{X86_64, "480110", "add", Load | Store},
		{X86_64, "480310", "add", Load},
		{X86_64, "483910", "cmp", Load},
		{X86_64, "48f7f1", "div", LongLatency},
		{X86_64, "f20f51c1", "sqrtsd", LongLatency},
		{X86_64, "f20f5e00", "divsd", LongLatency | Load},
		{X86_64, "e800000000", "call", Call},
		{X86_64, "c3", "ret", Branch | Return},
		{X86_64, "75fe", "jne", Branch},
		{X86_64, "ff24c500000000", "jmp", Branch | Load},
		{X86_64, "488d0400", "lea", 0},
		{X86_64, "0f1808", "prefetcht0", 0},
		{X86_64, "f30f1efa", "endbr64", 0},
		{X86_64, "c5f877", "vzeroupper", 0},
		{X86_64, "c5fc77", "vzeroall", 0},
		{ARM64, "200040f9", "ldr", Load},
		{ARM64, "200000f9", "str", Store},
		{ARM64, "fd7bbfa9", "stp", Store},
		{ARM64, "000cc19a", "sdiv", LongLatency},
		{ARM64, "0018611e", "fdiv", LongLatency},
		{ARM64, "10000094", "bl", Call},
		{ARM64, "20003fd6", "blr", Call},
		{ARM64, "c0035fd6", "ret", Branch | Return},
		{ARM64, "41000054", "b.ne", Branch},
		{ARM64, "400000b4", "cbz", Branch},
		{ARM64, "200080f9", "prfm", 0},
		{ARM64, "3f2303d5", "paciasp", 0},
		{ARM, "042091e5", "ldr", Load},
		{ARM, "1080bde8", "pop", Load | Branch | Return},
		{ARM, "1eff2fe1", "bx", Branch | Return},
		{ARM, "100000eb", "bl", Call},
		{ARM, "10f130e7", "udiv", LongLatency},
		{ARM, "0000a0e1", "nop", 0},
		{ARM, "028b2ded", "vpush", Store},
		{Thumb, "4868", "ldr", Load},
		{Thumb, "70bd", "pop", Load | Branch | Return},
		{Thumb, "7047", "bx", Branch | Return},
		{Thumb, "00f0d7f8", "bl", Call},
		{Thumb, "b0fbf1f0", "udiv", LongLatency},
		{Thumb, "87ee067b", "vdiv.f64", LongLatency},
		{Thumb, "0228", "cmp", 0},
		{Thumb, "70b5", "push", Store},
		{Thumb, "dfe803f0", "tbb", Branch | Load},
		{Thumb, "55f8047b", "ldr.w", Load},
	} {
		b, _ := hex.DecodeString(c.hex)
		got := Decode(c.arch, 0x1000, b, nil)
		if len(got) != 1 || got[0].Op != c.op || got[0].Class != c.class {
			t.Errorf("%v %s: got %+v, want op %s class %v", c.arch, c.hex, got, c.op, c.class)
		}
	}
}

// TestThumbIT: an IT block gives its instructions their conditions (and the 16-bit
// data-processing forms no "s"); after the block, flag-setting forms come back.
func TestThumbIT(t *testing.T) {
	b, _ := hex.DecodeString("00280cbf0120002001200cbf0120002001e0")
	var ops []string
	for _, in := range Decode(Thumb, 0x1000, b, nil) {
		ops = append(ops, in.Op)
	}
	want := "cmp ite moveq movne movs ite moveq movne b.n"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestMapping: $d ranges in ARM code are data (.word, or smaller to reach alignment), and
// $t/$a switch the instruction set inside one buffer.
func TestMapping(t *testing.T) {
	b, _ := hex.DecodeString("7047" + "0000" + "78563412" + "1eff2fe1")
	m := []MapSym{{0x1000, 't'}, {0x1002, 'd'}, {0x1008, 'a'}}
	var got []string
	for _, in := range Decode(Thumb, 0x1000, b, &Options{Mapping: m}) {
		got = append(got, in.Text)
	}
	want := "bx     lr|.short 0x0000|.word  0x12345678|bx     lr"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
}

// TestARM64Extra: the encodings arm64asm lacks, as objdump writes them.
func TestARM64Extra(t *testing.T) {
	for _, c := range []struct{ hex, text string }{
		{"00000000", "udf    #0"},
		{"4100e0b8", "ldaddal w0, w1, [x2]"},
		{"5f0020f8", "stadd  x0, [x2]"},
		{"41fce088", "casal  w0, w1, [x2]"},
		{"4180e038", "swpalb w0, w1, [x2]"},
	} {
		b, _ := hex.DecodeString(c.hex)
		if got := Decode(ARM64, 0, b, nil); got[0].Text != c.text {
			t.Errorf("%s: got %q, want %q", c.hex, got[0].Text, c.text)
		}
	}
}

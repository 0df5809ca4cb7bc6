package disasm

import (
	"sync"
	"testing"
)

var allArchs = []Arch{X86_64, ARM64, ARM, Thumb}

// checkDecode asserts Decode's contract on arbitrary bytes: items tile the buffer exactly
// (each advances, none overlaps or runs past the end) and every item has text.
func checkDecode(t *testing.T, a Arch, code []byte, opt *Options) {
	t.Helper()
	const base = 0x10000
	next := uint64(base)
	for _, in := range Decode(a, base, code, opt) {
		if in.Addr != next || in.Len <= 0 || len(in.Bytes) != in.Len || in.Text == "" || in.Op == "" {
			t.Fatalf("%v % x: bad item at %#x (want %#x): %+v", a, code, in.Addr, next, in)
		}
		next += uint64(in.Len)
	}
	if next != base+uint64(len(code)) {
		t.Fatalf("%v % x: items end at %#x, code at %#x", a, code, next, base+len(code))
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range [][]byte{
		{0xf3, 0x0f, 0x1e, 0xfa, 0xc5, 0xf8, 0x77, 0xc3},                   // endbr64; vzeroupper; ret
		{0x62, 0xf1, 0x7d, 0x48, 0x6f, 0x06, 0x0f, 0x05},                   // EVEX vmovdqa32; syscall
		{0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6},                   // arm64 nop; ret
		{0x70, 0xb5, 0x02, 0x28, 0x00, 0xf0, 0xd7, 0xf8, 0x08, 0xbf, 0x01}, // thumb push, cmp, bl, it, truncated
		{0x1e, 0xff, 0x2f, 0xe1},                                           // arm bx lr
		{},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		for _, a := range allArchs {
			checkDecode(t, a, code, nil)
		}
		checkDecode(t, Thumb, code, &Options{Mapping: []MapSym{{0x10000, 't'}, {0x10006, 'd'}, {0x1000a, 'a'}}})
	})
}

// TestDecodeConcurrent decodes from several goroutines at once; run with -race it checks
// that the x/arch decoders' package-level state is never shared (arm64asm's known race).
func TestDecodeConcurrent(t *testing.T) {
	code := []byte{0x1f, 0x20, 0x03, 0xd5, 0x20, 0x00, 0x40, 0xf9, 0x41, 0x00, 0x00, 0x54, 0xc0, 0x03, 0x5f, 0xd6}
	want := Decode(ARM64, 0, code, nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				for _, a := range []Arch{ARM64, ARM, Thumb, X86_64} {
					got := Decode(a, 0, code, nil)
					if a == ARM64 && (len(got) != len(want) || got[2].Text != want[2].Text) {
						t.Errorf("concurrent decode differs: %v", got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if want[0].Op != "nop" || want[1].Text != "ldr    x0, [x1]" || want[2].Text != "b.ne   10" || want[3].Class != Branch|Return {
		t.Errorf("arm64 decode: %+v", want)
	}
}

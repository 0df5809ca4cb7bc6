package disasm

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// Operands as objdump (binutils 2.40) writes them, on encodings where x86asm's GNU syntax
// differs; the expected text is objdump -D -b binary -m i386:x86-64 on the same bytes.
func TestX86OperandsAsObjdump(t *testing.T) {
	for _, c := range []struct {
		code []byte
		want string
	}{
		{[]byte{0x45, 0x8b, 0x8a, 0x30, 0xf8, 0xff, 0xff}, "mov    -0x7d0(%r10),%r9d"},
		{[]byte{0x44, 0x8d, 0x97, 0x49, 0xff, 0xff, 0xff}, "lea    -0xb7(%rdi),%r10d"},
		{[]byte{0x48, 0x83, 0xe4, 0xf0}, "and    $0xfffffffffffffff0,%rsp"},
		{[]byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, "nopl   0x0(%rax,%rax,1)"},
		{[]byte{0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}, "data16 cs nopw 0x0(%rax,%rax,1)"},
		{[]byte{0x64, 0x48, 0x8b, 0x34, 0x25, 0xc0, 0xff, 0xff, 0xff}, "mov    %fs:0xffffffffffffffc0,%rsi"},
		{[]byte{0xf3, 0xc3}, "repz ret"},
		{[]byte{0xdd, 0xd8}, "fstp   %st(0)"},
		{[]byte{0xdb, 0xe8}, "fucomi %st(0),%st"},
		{[]byte{0xd8, 0xc0}, "fadd   %st(0),%st"},
		{[]byte{0xdc, 0xc0}, "fadd   %st,%st(0)"},
		{[]byte{0x3e, 0xff, 0xe0}, "notrack jmp *%rax"},
		{[]byte{0xf3, 0x48, 0x0f, 0xae, 0xe8}, "incsspq %rax"},
		{[]byte{0xc5, 0xfd, 0x6f, 0x15, 0x10, 0x00, 0x00, 0x00}, "vmovdqa 0x10(%rip),%ymm2"},
		{[]byte{0x4f, 0x8d, 0x44, 0x1d, 0x00}, "lea    0x0(%r13,%r11,1),%r8"},
	} {
		got := Decode(X86_64, 0, c.code, nil)
		if len(got) != 1 || got[0].Text != c.want {
			var texts []string
			for _, in := range got {
				texts = append(texts, in.Text)
			}
			t.Errorf("% x: %q, want %q", c.code, texts, c.want)
		}
	}
}

var blanks = regexp.MustCompile(`\s+`)

// TestObjdumpText compares the whole text of every instruction (operands, branch labels,
// the "# addr <sym+off>" comments) with objdump's, on a static executable (the workload and
// the C library linked into it) and a dynamic PIE one (PLT calls, GOT slots, .rodata), both
// named with ELFSymbols as objdump names them. x86-64 only: arm64 and ARM operands are
// still written in their own ways (mnemonics are compared by TestObjdumpWholeBinary).
func TestObjdumpText(t *testing.T) {
	tc := toolchains[0]
	static, _ := build(t, tc, "matmul")
	root, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	dynamic := filepath.Join(t.TempDir(), "matmul-pie")
	src := filepath.Join(root, "workloads", "src", "matmul.c")
	if out, err := exec.Command(tc.cc, "-std=gnu11", "-O2", "-fPIE", "-pie", "-I"+filepath.Join(root, "include"), "-o", dynamic, src, "-lm", "-pthread").CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tc.cc, err, out)
	}
	for _, exe := range []string{static, dynamic} {
		t.Run(filepath.Base(exe), func(t *testing.T) {
			im := openELF(t, exe)
			obj := runObjdump(t, tc.objdump, exe)
			sym := ELFSymbols(im.f)
			n, differ := 0, 0
			var first []string
			for _, s := range im.funcs() {
				start, b := im.code(t, s)
				if _, ok := obj[start+s.Size]; !ok && s.Size > 0 {
					continue // objdump runs on past the function's end: boundaries differ
				}
				for _, in := range Decode(X86_64, start, b, &Options{Symbols: sym}) {
					o, ok := obj[in.Addr]
					if !ok {
						continue
					}
					n++
					if g, w := blanks.ReplaceAllString(in.Text, " "), blanks.ReplaceAllString(o.text, " "); g != w {
						differ++
						if len(first) < 20 {
							first = append(first, fmt.Sprintf("%#x: pmc %q objdump %q", in.Addr, g, w))
						}
					}
				}
			}
			t.Logf("%d instructions, %d differ from objdump", n, differ)
			if n < 300 || differ > 0 {
				t.Errorf("%d of %d instructions differ from objdump's text:\n  %s", differ, n, strings.Join(first, "\n  "))
			}
		})
	}
}

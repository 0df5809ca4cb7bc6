package armv6

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/arch/arm/armasm"
)

// beyond is an encoding the ARM1176 (ARMv6 with the K and Z extensions, VFPv2) does not
// execute as it is meant, or at all: ARMv7 barriers, ARMv6T2 MOVW/MOVT, divide, the byte,
// halfword and doubleword exclusives of ARMv6K (Go's GOARM=6 code must not count on them),
// NEON, VFPv3 immediates and the upper 16 double registers of VFPv3-D32.
type beyond struct {
	name        string
	mask, value uint32
	also        func(w uint32) bool // nil: mask and value say it all
}

var beyondV6 = []beyond{
	{"dmb/dsb/isb (ARMv7 barrier)", 0xffffff00, 0xf57ff000, func(w uint32) bool { o := w >> 4 & 0xf; return o >= 4 && o <= 6 }},
	{"clrex (ARMv6K)", 0xffffffff, 0xf57ff01f, nil},
	{"movw (ARMv6T2)", 0x0ff00000, 0x03000000, nil},
	{"movt (ARMv6T2)", 0x0ff00000, 0x03400000, nil},
	{"sdiv/udiv (ARMv7 divide)", 0x0fd0f0f0, 0x0710f010, nil},
	{"ldrexd/ldrexb/ldrexh (ARMv6K)", 0x0f900fff, 0x01900f9f, func(w uint32) bool { return w>>21&3 != 0 }},
	{"strexd/strexb/strexh (ARMv6K)", 0x0f900ff0, 0x01800f90, func(w uint32) bool { return w>>21&3 != 0 }},
	{"NEON data processing", 0xfe000000, 0xf2000000, nil},
	{"NEON load/store", 0xff100000, 0xf4000000, nil},
	{"vmov immediate (VFPv3)", 0x0fb00ef0, 0x0eb00a00, nil},
	{"d16-d31 (VFPv3-D32)", 0x0c000e00, 0x0c000a00, highD},
}

// highD: a VFP instruction (cp10, cp11) naming one of d16-d31, as the decoder reads it.
func highD(w uint32) bool {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], w)
	in, err := armasm.Decode(b[:], armasm.ModeARM)
	if err != nil {
		return false
	}
	for _, a := range in.Args {
		if r, ok := a.(armasm.Reg); ok && r >= armasm.D16 && r <= armasm.D31 {
			return true
		}
	}
	return false
}

// guarded are the functions of the Go runtime whose ARMv7 instructions run only when
// internal/cpu or runtime.goarm says the CPU has them (checked at run time, before them):
// the atomics (cpu.ARM.HasV7Atomics), the publication barrier (goarm >= 7) and udiv
// (cpu.ARM.HasIDIVA). Anything else is an instruction the ARM1176 would trap on.
var guarded = map[string]bool{
	"internal/runtime/atomic.armcas": true, "internal/runtime/atomic.Load": true,
	"internal/runtime/atomic.Load8": true, "internal/runtime/atomic.Store": true,
	"internal/runtime/atomic.Store8": true, "armCas64": true, "armXadd64": true,
	"armXchg64": true, "armLoad64": true, "armStore64": true, "armAnd8": true, "armOr8": true,
	"armXchg8": true, "runtime.armPublicationBarrier": true, "runtime.udiv": true,
}

// scan lists, per function, the instructions of bin's .text beyond ARMv6. Words that
// PC-relative loads read (Go's literal pools, data between functions) are not instructions
// and are skipped; so are functions in skip.
func scan(t *testing.T, bin string, skip map[string]bool) (found []string, words int) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_ARM {
		t.Fatalf("%s: machine %v, want ARM", bin, f.Machine)
	}
	text := f.Section(".text")
	b, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	literal := literalWords(b, text.Addr)
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s: %v (build it with its symbol table)", bin, err)
	}
	sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
	funcAt := func(a uint64) string {
		i := sort.Search(len(syms), func(i int) bool { return syms[i].Value > a }) - 1
		if i < 0 {
			return "?"
		}
		return syms[i].Name
	}
	count := map[string]int{}
	for i := 0; i+4 <= len(b); i += 4 {
		a := text.Addr + uint64(i)
		if literal[a] {
			continue
		}
		for _, name := range beyondAt(binary.LittleEndian.Uint32(b[i:])) {
			if fn := funcAt(a); !skip[fn] {
				count[fmt.Sprintf("%s: %s", fn, name)]++
			}
		}
	}
	for k, n := range count {
		found = append(found, fmt.Sprintf("%s (%d)", k, n))
	}
	sort.Strings(found)
	return found, len(b) / 4
}

// TestArmv6Instructions: the armv6 binary holds no instruction beyond ARMv6 outside the Go
// runtime's guarded paths. The armv7 build, scanned the same way, must hold many: the scan
// is shown to find them.
func TestArmv6Instructions(t *testing.T) {
	build(t)
	found, words := scan(t, armv6, guarded)
	if len(found) > 0 {
		t.Errorf("the armv6 binary has instructions the ARM1176 lacks, outside the runtime's guarded paths:\n  %s",
			strings.Join(found, "\n  "))
	}
	all, _ := scan(t, armv6, nil)
	t.Logf("%d words of .text scanned; in the guarded runtime functions: %d kinds of site", words, len(all))
	if len(all) == 0 {
		t.Error("not even the runtime's guarded barriers were found: the scan finds nothing")
	}

	armv7 := filepath.Join(buildDir, "pmc-armv7")
	cmd := exec.Command("go", "build", "-trimpath", "-o", armv7, "./cmd/pmc")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOARCH=arm", "GOARM=7")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build (armv7): %v\n%s", err, out)
	}
	v7, _ := scan(t, armv7, guarded)
	var movw, vmov bool
	for _, s := range v7 {
		movw = movw || strings.Contains(s, "movw (ARMv6T2)")
		vmov = vmov || strings.Contains(s, "vmov immediate (VFPv3)")
	}
	if !movw || !vmov {
		t.Errorf("the armv7 build shows no MOVW or no VFPv3 immediate (%d sites): the scan misses what GOARM=7 emits", len(v7))
	}
}

// literalWords are the words of code b (loaded at addr) that PC-relative loads read: data,
// not instructions.
func literalWords(b []byte, addr uint64) map[uint64]bool {
	literal := map[uint64]bool{}
	for i := 0; i+4 <= len(b); i += 4 {
		w, pc := binary.LittleEndian.Uint32(b[i:]), addr+uint64(i)+8
		target := func(off uint64) uint64 {
			if w&(1<<23) == 0 {
				return pc - off
			}
			return pc + off
		}
		switch {
		case w&0x0f7f0000 == 0x051f0000: // LDR Rt, [PC, #±imm12]
			literal[target(uint64(w&0xfff))] = true
		case w&0x0f3f0e00 == 0x0d1f0a00: // VLDR [PC, #±imm8*4]
			a := target(uint64(w&0xff) * 4)
			literal[a], literal[a+4] = true, true
		case w&0x0e5f00f0 == 0x004f00d0: // LDRD Rt, [PC, #±imm8]
			a := target(uint64(w&0xf | w>>4&0xf0))
			literal[a], literal[a+4] = true, true
		}
	}
	return literal
}

// beyondAt names the encodings beyond ARMv6 that instruction word w is.
func beyondAt(w uint32) []string {
	var names []string
	for _, c := range beyondV6 {
		unconditional := c.value>>28 == 0xf
		if w&c.mask != c.value || (!unconditional && w>>28 == 0xf) || (c.also != nil && !c.also(w)) {
			continue
		}
		names = append(names, c.name)
	}
	return names
}

// TestArmv6LaunchShim: the tiny launch shim that the armv6 binary carries (and runs on every
// launch) holds ARMv6 instructions only, each of which the decoder reads.
func TestArmv6LaunchShim(t *testing.T) {
	f, err := elf.Open("../../internal/launch/tiny/elf/arm")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	if text == nil {
		t.Fatal("the shim has no .text section")
	}
	b, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	literal := literalWords(b, text.Addr)
	for i := 0; i+4 <= len(b); i += 4 {
		a := text.Addr + uint64(i)
		if literal[a] {
			continue
		}
		if _, err := armasm.Decode(b[i:i+4], armasm.ModeARM); err != nil {
			t.Errorf("%#x: %08x does not decode: %v", a, binary.LittleEndian.Uint32(b[i:]), err)
		}
		if names := beyondAt(binary.LittleEndian.Uint32(b[i:])); len(names) > 0 {
			t.Errorf("%#x: %s", a, strings.Join(names, ", "))
		}
	}
	if len(literal) == 0 {
		t.Error("no literal found: the shim loads its clone flags from one")
	}
}

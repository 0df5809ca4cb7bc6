package unwind

import (
	"debug/elf"
	"testing"
)

// TestPerfRegs: perf's register layouts to DWARF numbers, and registers that do not fit.
func TestPerfRegs(t *testing.T) {
	// x86-64: perf's AX BX CX DX SI DI BP SP IP ... R8-R15 (mask 0xff0fff: 20 values).
	vals := make([]uint64, 20)
	for i := range vals {
		vals[i] = uint64(100 + i)
	}
	r, err := PerfRegs(X86_64, MaskX86_64, vals)
	if err != nil {
		t.Fatal(err)
	}
	for dwarf, want := range map[int]uint64{0: 100, 3: 101, 2: 102, 1: 103, 6: 106, 7: 107, 16: 108, 8: 112, 15: 119} {
		if v, ok := r.Get(dwarf); !ok || v != want {
			t.Errorf("x86-64 DWARF register %d: %d %v, want %d", dwarf, v, ok, want)
		}
	}
	// 32-bit ARM: r0-r15 as they are, the upper half of a word dropped.
	arm := make([]uint64, 16)
	for i := range arm {
		arm[i] = 1<<40 | uint64(i)
	}
	if r, err := PerfRegs(ARM, MaskARM, arm); err != nil {
		t.Fatal(err)
	} else if v, _ := r.Get(13); v != 13 {
		t.Errorf("ARM sp %#x, want 13", v)
	}
	for name, c := range map[string]struct {
		arch Arch
		mask uint64
		vals []uint64
	}{
		"fewer values than the mask": {X86_64, MaskX86_64, vals[:5]},
		"no stack pointer":           {ARM64, 1<<30 | 1<<32, []uint64{1, 2}},
		"no program counter":         {ARM, 1 << 13, []uint64{1}},
	} {
		if _, err := PerfRegs(c.arch, c.mask, c.vals); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestArchs: which register file a task has, by the recording machine and the task's ABI.
func TestArchs(t *testing.T) {
	for _, c := range []struct {
		uname string
		mask  uint64
		abi   uint64
		want  Arch
		err   bool
	}{
		{"x86_64", 0, abi64, X86_64, false},
		{"", MaskX86_64, abi64, X86_64, false},
		{"aarch64", 0, abi64, ARM64, false},
		{"aarch64", 0, abi32, ARM, false}, // a 32-bit task on an arm64 kernel
		{"armv7l", 0, abi32, ARM, false},
		{"", MaskARM, abi32, ARM, false},
		{"x86_64", 0, abi32, ArchUnknown, true}, // a 32-bit x86 task
		{"riscv64", 0, abi64, ArchUnknown, true},
		{"x86_64", 0, 7, ArchUnknown, true},
	} {
		got, err := TaskArch(RecordingArch(c.uname, c.mask), c.abi)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%q mask %#x abi %d: %v, %v; want %v (error %v)", c.uname, c.mask, c.abi, got, err, c.want, c.err)
		}
	}
	if ArchOfMachine(elf.EM_AARCH64) != ARM64 || ArchOfMachine(elf.EM_ARM) != ARM || ArchOfMachine(elf.EM_386) != ArchUnknown {
		t.Error("ELF machines to architectures")
	}
}

// TestMismatch: registers of one architecture and tables of another end the chain at once.
func TestMismatch(t *testing.T) {
	tab := x86Tables(fdeSpec{0x1000, 0x100, nil})
	var r Regs
	r.Set(15, 0x1010)
	r.Set(13, 0x7000)
	out, stop := Unwind(ARM, r, stackOf(0x2020, 0), oneObject(tab), nil)
	if len(out) != 1 || stop.Reason != BadRegs {
		t.Fatalf("frames %#x, stop %v; want the sampled frame and registers that do not fit", out, stop)
	}
	if out, stop := Unwind(ArchUnknown, r, nil, oneObject(tab), nil); len(out) != 0 || stop.Reason != BadRegs {
		t.Fatalf("an unknown architecture: frames %#x, stop %v", out, stop)
	}
}

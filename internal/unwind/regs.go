package unwind

import (
	"debug/elf"
	"fmt"
	"math/bits"
	"strings"
)

// Arch is a register file the unwinder knows.
type Arch uint8

const (
	ArchUnknown Arch = iota
	X86_64
	ARM64
	ARM // 32-bit ARM: A32 and Thumb-2 code
)

func (a Arch) String() string {
	switch a {
	case X86_64:
		return "x86-64"
	case ARM64:
		return "arm64"
	case ARM:
		return "32-bit ARM"
	}
	return "an unknown architecture"
}

// archInfo is an architecture's DWARF register numbers and word size.
type archInfo struct {
	sp, pc, ra int // DWARF numbers of the stack pointer, the program counter, the return address column
	nregs      int // DWARF registers 0..nregs-1 are tracked
	word       int // bytes
	machine    elf.Machine
}

var archs = [...]archInfo{
	// x86-64 (System V psABI): rsp 7; 16 is the return address column, which holds the pc.
	X86_64: {sp: 7, pc: 16, ra: 16, nregs: 17, word: 8, machine: elf.EM_X86_64},
	// AArch64 (DWARF for the Arm 64-bit architecture): x0-x30 0-30, sp 31, pc 32.
	ARM64: {sp: 31, pc: 32, ra: 30, nregs: 33, word: 8, machine: elf.EM_AARCH64},
	// 32-bit ARM (DWARF for the ARM architecture): r0-r15 0-15, sp r13, lr r14, pc r15.
	ARM: {sp: 13, pc: 15, ra: 14, nregs: 16, word: 4, machine: elf.EM_ARM},
}

const maxRegs = 33

// Regs are a frame's register values by DWARF number, each known or not.
type Regs struct {
	v     [maxRegs]uint64
	known uint64
}

// Get returns register r's value and whether it is known.
func (r *Regs) Get(n int) (uint64, bool) {
	if n < 0 || n >= maxRegs || r.known&(1<<n) == 0 {
		return 0, false
	}
	return r.v[n], true
}

// Set makes register n known with value v.
func (r *Regs) Set(n int, v uint64) {
	if n >= 0 && n < maxRegs {
		r.v[n], r.known = v, r.known|1<<n
	}
}

func (r *Regs) forget(n int) {
	if n >= 0 && n < maxRegs {
		r.known &^= 1 << n
	}
}

// The perf_event register numbers (arch/*/include/uapi/asm/perf_regs.h) of each
// architecture, as DWARF numbers: perfX86[i] is the DWARF number of perf register i, -1 for
// the registers unwinding does not use (flags, segments).
var perfX86 = [...]int{
	0, 3, 2, 1, 4, 5, 6, 7, // AX BX CX DX SI DI BP SP -> rax rbx rcx rdx rsi rdi rbp rsp
	16,                         // IP: the return address column
	-1, -1, -1, -1, -1, -1, -1, // FLAGS CS SS DS ES FS GS
	8, 9, 10, 11, 12, 13, 14, 15, // R8-R15
}

// The register masks perf records with --call-graph dwarf (arch__user_reg_mask): every
// general register but x86's DS, ES, FS and GS; arm64's x0-x30, sp and pc; ARM's r0-r15.
const (
	MaskX86_64 uint64 = 0xff0fff
	MaskARM64  uint64 = 1<<33 - 1
	MaskARM    uint64 = 1<<16 - 1
)

// The register ABIs of PERF_SAMPLE_REGS_USER.
const (
	abi32 = 1
	abi64 = 2
)

// RecordingArch is the architecture of the machine a recording was made on, from the
// perf.data arch feature (uname -m: x86_64, aarch64, armv7l...) or, without it, from the
// register mask its dwarf samples carry.
func RecordingArch(uname string, mask uint64) Arch {
	switch {
	case uname == "x86_64":
		return X86_64
	case uname == "aarch64" || uname == "arm64":
		return ARM64
	case strings.HasPrefix(uname, "arm"):
		return ARM
	case uname != "":
		return ArchUnknown
	case mask == MaskX86_64:
		return X86_64
	case mask == MaskARM64:
		return ARM64
	case mask == MaskARM:
		return ARM
	}
	return ArchUnknown
}

// TaskArch is the register file of a sample's task: the recording machine's, or 32-bit
// ARM for a 32-bit task on an arm64 kernel. A 32-bit task on x86-64 is not unwound.
func TaskArch(machine Arch, abi uint64) (Arch, error) {
	switch {
	case abi == abi64 && (machine == X86_64 || machine == ARM64):
		return machine, nil
	case abi == abi32 && (machine == ARM || machine == ARM64):
		return ARM, nil
	case abi == abi32 && machine == X86_64:
		return ArchUnknown, fmt.Errorf("a 32-bit x86 task: not unwound")
	case abi != abi32 && abi != abi64:
		return ArchUnknown, fmt.Errorf("register ABI %d is not 32- or 64-bit", abi)
	}
	return ArchUnknown, fmt.Errorf("%d-bit registers from a recording of %v", 32*abi, machine)
}

// PerfRegs converts the registers of a sample (the values of mask's bits, lowest first) to
// DWARF numbering for arch (the task's register file, TaskArch).
func PerfRegs(arch Arch, mask uint64, vals []uint64) (Regs, error) {
	var r Regs
	if bits.OnesCount64(mask) != len(vals) {
		return r, fmt.Errorf("%d register values for a mask of %d", len(vals), bits.OnesCount64(mask))
	}
	for i, bit := 0, 0; mask != 0; bit++ {
		if mask&1 != 0 {
			v := vals[i]
			i++
			switch arch {
			case X86_64:
				if bit < len(perfX86) && perfX86[bit] >= 0 {
					r.Set(perfX86[bit], v)
				}
			case ARM64:
				if bit <= 32 {
					r.Set(bit, v)
				}
			case ARM:
				// A 32-bit task: r0-r15 are perf's 0-15 on both kernels (an arm64
				// kernel gives a compat task's sp, lr and pc there too).
				if bit <= 15 {
					r.Set(bit, v&0xffffffff)
				}
			}
		}
		mask >>= 1
	}
	ai := archs[arch]
	for _, n := range []int{ai.sp, ai.pc} {
		if _, ok := r.Get(n); !ok {
			return r, fmt.Errorf("the registers lack %s", regName(arch, n))
		}
	}
	return r, nil
}

func regName(arch Arch, n int) string {
	ai := archs[arch]
	switch n {
	case ai.sp:
		return "the stack pointer"
	case ai.pc:
		return "the program counter"
	}
	return fmt.Sprintf("register %d", n)
}

// ArchOfMachine is the architecture of ELF code for machine.
func ArchOfMachine(m elf.Machine) Arch {
	for a, ai := range archs {
		if a != int(ArchUnknown) && ai.machine == m {
			return Arch(a)
		}
	}
	return ArchUnknown
}

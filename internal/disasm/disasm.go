package disasm

import (
	"debug/elf"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Arch is an instruction set.
type Arch int

// The instruction sets pmc decodes.
const (
	X86_64 Arch = iota + 1
	ARM64
	ARM   // A32
	Thumb // T32 (Thumb-2)
)

func (a Arch) String() string {
	switch a {
	case X86_64:
		return "x86_64"
	case ARM64:
		return "aarch64"
	case ARM:
		return "arm"
	case Thumb:
		return "thumb"
	}
	return fmt.Sprintf("arch(%d)", int(a))
}

// ArchOf is the instruction set of a function in an ELF file of machine m whose symbol value
// is value: 32-bit ARM functions with bit 0 set are Thumb. ok is false for other machines.
func ArchOf(m elf.Machine, value uint64) (a Arch, ok bool) {
	switch m {
	case elf.EM_X86_64:
		return X86_64, true
	case elf.EM_AARCH64:
		return ARM64, true
	case elf.EM_ARM:
		if value&1 != 0 {
			return Thumb, true
		}
		return ARM, true
	}
	return 0, false
}

// Class says what an instruction does that matters to a profile. Several bits may be set
// (an x86 add to memory loads and stores).
type Class uint8

// Instruction classes.
const (
	Load        Class = 1 << iota // reads memory
	Store                         // writes memory
	Branch                        // may change the flow (jumps, conditional branches, returns)
	Call                          // calls a function
	Return                        // returns from a function
	LongLatency                   // divide, square root: tens of cycles
	Data                          // not an instruction: a literal pool word or undecodable bytes
)

var classNames = []string{"load", "store", "branch", "call", "return", "long-latency", "data"}

// Names lists the class bits set, e.g. ["load", "store"].
func (c Class) Names() []string {
	var out []string
	for i, n := range classNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func (c Class) String() string { return strings.Join(c.Names(), ",") }

// Inst is one decoded instruction (or data item).
type Inst struct {
	Addr  uint64
	Len   int
	Bytes []byte // the instruction's bytes, a slice of the code passed to Decode
	Op    string // mnemonic as objdump spells it ("mov", "b.ne", "ldr.w", ".word")
	Text  string // the whole instruction: mnemonic padded as objdump does, then operands
	Class Class
	// Target is the destination of a direct branch or call (HasTarget set).
	Target    uint64
	HasTarget bool
}

// Symbolizer names an address for branch targets and RIP-relative operands: the symbol
// that contains addr and its start. ok is false when nothing contains addr.
type Symbolizer func(addr uint64) (name string, start uint64, ok bool)

// Options are optional inputs to Decode.
type Options struct {
	// Symbols names branch targets as objdump does ("401b50 <wl_choice>"); nil prints
	// addresses only.
	Symbols Symbolizer
	// Mapping is the ELF mapping symbols of a 32-bit ARM file (see Mapping); data ranges
	// ($d) are shown as .word and ARM/Thumb switches are followed. Ignored elsewhere.
	Mapping []MapSym
}

// Decode decodes code, which starts at address addr, as instructions of arch a. It never
// fails: bytes that are not a known instruction come out as data items (.byte, .short,
// .word, .inst) of the right length.
func Decode(a Arch, addr uint64, code []byte, opt *Options) []Inst {
	if opt == nil {
		opt = &Options{}
	}
	var out []Inst
	var it itState // Thumb IT block in progress
	for off := 0; off < len(code); {
		pc := addr + uint64(off)
		cur := a
		var in Inst
		kind, end := byte(0), ^uint64(0)
		if a == ARM || a == Thumb {
			kind, end = mappingAt(opt.Mapping, pc)
			switch kind {
			case 'a':
				cur = ARM
			case 't':
				cur = Thumb
			}
		}
		switch {
		case kind == 'd':
			in = dataWord(pc, code[off:], end)
		case cur == X86_64:
			in = decodeX86(pc, code[off:], opt.Symbols)
		case cur == ARM64:
			in = decodeARM64(pc, code[off:], opt.Symbols)
		case cur == ARM:
			in = decodeARM(pc, code[off:], opt.Symbols)
		case cur == Thumb:
			in = decodeThumb(pc, code[off:], opt.Symbols, &it)
		default:
			in = byteData(pc, code[off:off+1])
		}
		if cur != Thumb || kind == 'd' {
			it = itState{}
		}
		if in.Len <= 0 || in.Len > len(code)-off { // never: every decoder bounds itself
			in = byteData(pc, code[off:off+1])
		}
		in.Addr = pc
		in.Bytes = code[off : off+in.Len]
		out = append(out, in)
		off += in.Len
	}
	return out
}

// lock serialises calls into arm64asm and armasm, whose Decode writes a package-level
// coverage slice (a data race between goroutines otherwise).
var lock sync.Mutex

// MapSym is an ARM ELF mapping symbol: Kind 'a' (A32 code from Addr on), 't' (Thumb code)
// or 'd' (data).
type MapSym struct {
	Addr uint64
	Kind byte
}

// Mapping extracts the mapping symbols ($a, $t, $d, also "$d.1"...) from an ELF symbol
// table, sorted by address.
func Mapping(syms []elf.Symbol) []MapSym {
	var out []MapSym
	for _, s := range syms {
		if len(s.Name) < 2 || s.Name[0] != '$' || (len(s.Name) > 2 && s.Name[2] != '.') {
			continue
		}
		switch k := s.Name[1]; k {
		case 'a', 't', 'd':
			out = append(out, MapSym{s.Value, k})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out
}

// mappingAt is the mapping in force at pc (0 when none) and where it ends (the next mapping
// symbol's address, or ^0).
func mappingAt(m []MapSym, pc uint64) (kind byte, end uint64) {
	i := sort.Search(len(m), func(i int) bool { return m[i].Addr > pc })
	end = ^uint64(0)
	if i < len(m) {
		end = m[i].Addr
	}
	if i == 0 {
		return 0, end
	}
	return m[i-1].Kind, end
}

// dataWord is one item of a $d range as objdump shows it: up to the next 4-byte boundary
// (.word when aligned, a .short or .byte to reach alignment), cut by the range or the buffer.
func dataWord(pc uint64, code []byte, end uint64) Inst {
	n := 4 - int(pc&3)
	if n == 3 {
		n = 1
	}
	if rest := end - pc; rest < uint64(n) {
		n = int(rest)
	}
	if n > len(code) {
		n = len(code)
	}
	switch n {
	case 4:
		v := uint32(code[0]) | uint32(code[1])<<8 | uint32(code[2])<<16 | uint32(code[3])<<24
		return dataInst(pc, ".word", fmt.Sprintf("0x%08x", v), 4)
	case 2:
		v := uint16(code[0]) | uint16(code[1])<<8
		return dataInst(pc, ".short", fmt.Sprintf("0x%04x", v), 2)
	}
	return byteData(pc, code[:1])
}

func byteData(pc uint64, b []byte) Inst {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("0x%02x", c)
	}
	return dataInst(pc, ".byte", strings.Join(parts, ","), len(b))
}

func dataInst(pc uint64, op, args string, n int) Inst {
	return Inst{Addr: pc, Len: n, Op: op, Text: pad(op, args), Class: Data}
}

// pad lays out an instruction as objdump does: the mnemonic padded to 6 columns, a space,
// the operands.
func pad(op, args string) string {
	if args == "" {
		return op
	}
	return fmt.Sprintf("%-6s %s", op, args)
}

// target formats a branch destination as objdump does: "401b50 <wl_choice+0x10>".
func target(addr uint64, sym Symbolizer) string {
	s := fmt.Sprintf("%x", addr)
	if sym == nil {
		return s
	}
	if name, start, ok := sym(addr); ok {
		if addr == start {
			return fmt.Sprintf("%s <%s>", s, name)
		}
		return fmt.Sprintf("%s <%s+0x%x>", s, name, addr-start)
	}
	return s
}

package symbol

import (
	"cmp"
	"slices"
	"sort"
	"strings"
)

// Sym is one function symbol: [Addr, Addr+Size) in the DSO's own address space (ELF
// virtual addresses; kernel addresses for the kernel; process addresses for a perf map).
type Sym struct {
	Addr, Size uint64
	Name       string // as stored (mangled); Demangle gives the readable form
	// Module is the kernel module of a /proc/kallsyms symbol ("" for the kernel itself).
	Module string
	bind   uint8 // ELF binding, for choosing between aliases
}

// End is the first address after the symbol.
func (s *Sym) End() uint64 { return s.Addr + s.Size }

// Segment is a PT_LOAD program header: file bytes [Off, Off+Filesz) are mapped at Vaddr.
type Segment struct {
	Vaddr, Off, Filesz, Memsz uint64
}

// Kind says what a Table describes.
type Kind string

const (
	KindExec    Kind = "exec"    // ET_EXEC: a non-PIE executable
	KindDyn     Kind = "dyn"     // ET_DYN: PIE executable or shared library
	KindKernel  Kind = "kernel"  // /proc/kallsyms
	KindPerfMap Kind = "perfmap" // /tmp/perf-PID.map: absolute process addresses
)

// Table is the symbolization data of one DSO, built once and then only read: any number of
// goroutines may look up in it.
type Table struct {
	Path     string
	BuildID  string // lower-case hex, "" when the file has none
	Kind     Kind
	Segments []Segment
	Syms     []Sym // sorted by Addr, no two at the same address, no overlaps from size-0 symbols
	Lines    *Lines
	// Machine, Code and CodeMaps are the kept machine code of sampled functions (archives
	// written by pmc record --embed-symbols; see Code); empty otherwise.
	Machine  uint16
	Code     []Code
	CodeMaps []CodeMap
	// Text is a kernel image's (vmlinux) address of _text: the kernel's mapping in a
	// recording starts where _text ran (its pgoff), and MapAddr moves addresses by the
	// difference (KASLR). 0 for every other table.
	Text uint64
	// Frames and Scopes are what an archive kept for call graphs (--call-graph dwarf): the
	// unwind tables and the DWARF function scopes of the sampled functions (Inlines).
	Frames *FrameSections
	Scopes []Scope
	// Source says where the symbols came from: "symtab", "dynsym", a debug file's path,
	// "kallsyms", "perf-map", "archive".
	Source string
	// ksyms holds a kernel's symbols in place of Syms (ReadKallsyms).
	ksyms *ksyms
}

// Lookup returns the symbol containing addr (an address of the Table's own space, see
// FileAddr), or nil.
func (t *Table) Lookup(addr uint64) *Sym {
	if t == nil {
		return nil
	}
	if t.ksyms != nil {
		return t.ksyms.lookup(addr)
	}
	i := sort.Search(len(t.Syms), func(i int) bool { return t.Syms[i].Addr > addr })
	if i == 0 {
		return nil
	}
	s := &t.Syms[i-1]
	if addr < s.End() || (s.Size == 0 && addr == s.Addr) {
		return s
	}
	return nil
}

// FileAddr converts a file offset into the DSO's address space through the loadable
// segments. Tables without segments (kernel, perf maps) take offsets as addresses.
func (t *Table) FileAddr(off uint64) uint64 {
	for _, s := range t.Segments {
		if off >= s.Off && off < s.Off+s.Filesz {
			return s.Vaddr + off - s.Off
		}
	}
	return off
}

// MapAddr converts a process address ip, inside a mapping that starts at start and maps the
// file from offset pgoff (an mmap record), into the DSO's address space. The kernel and perf
// maps keep absolute addresses (a kernel image's are moved from where _text ran, pgoff, to
// its own _text).
func (t *Table) MapAddr(ip, start, pgoff uint64) uint64 {
	if t == nil {
		return ip - start + pgoff
	}
	switch t.Kind {
	case KindKernel:
		if t.Text != 0 && pgoff != 0 {
			return ip - pgoff + t.Text
		}
		return ip
	case KindPerfMap:
		return ip
	}
	return t.FileAddr(ip - start + pgoff)
}

// finish sorts the symbols, keeps one per address (perf's choice between aliases) and gives
// size-0 symbols the extent up to the next symbol.
func (t *Table) finish() {
	syms := t.Syms
	if !slices.IsSortedFunc(syms, func(a, b Sym) int { return cmp.Compare(a.Addr, b.Addr) }) {
		// A stable sort by address: small keys (address, position) sorted with pdqsort, then
		// the symbols moved once, in place, cycle by cycle (sorting the symbols themselves
		// moves 56 bytes a swap; a sorted copy costs their size again).
		keys := make([]symOrder, len(syms))
		for i := range syms {
			keys[i] = symOrder{syms[i].Addr, int32(i)}
		}
		slices.SortFunc(keys, func(a, b symOrder) int {
			if c := cmp.Compare(a.addr, b.addr); c != 0 {
				return c
			}
			return cmp.Compare(a.seq, b.seq)
		})
		// Position i takes the symbol at keys[i].seq; a placed position's seq becomes -1.
		for i := range keys {
			if keys[i].seq < 0 || int(keys[i].seq) == i {
				continue
			}
			tmp := syms[i]
			j := i
			for {
				k := int(keys[j].seq)
				keys[j].seq = -1
				if k == i {
					syms[j] = tmp
					break
				}
				syms[j] = syms[k]
				j = k
			}
		}
	}
	out := syms[:0]
	for _, s := range syms {
		if n := len(out); n > 0 && out[n-1].Addr == s.Addr {
			if better(&s, &out[n-1]) {
				out[n-1] = s
			}
			continue
		}
		out = append(out, s)
	}
	for i := range out {
		if out[i].Size != 0 {
			continue
		}
		if i+1 < len(out) {
			out[i].Size = out[i+1].Addr - out[i].Addr
		} else {
			// The last size-0 symbol runs to the end of its page and one more, as perf does.
			out[i].Size = (out[i].Addr+4095)&^4095 + 4096 - out[i].Addr
		}
	}
	t.Syms = out
}

// symOrder is a symbol's sort key: its address and its position in the table as read.
type symOrder struct {
	addr uint64
	seq  int32
}

const (
	bindLocal  = 0
	bindGlobal = 1
	bindWeak   = 2
)

// better reports whether a should replace b at the same address: a sized symbol over a
// size-0 one, non-weak over weak, global over local, fewer leading underscores, longer name;
// otherwise the first one seen stays (perf's rules, so both pick the same name).
func better(a, b *Sym) bool {
	if (a.Size == 0) != (b.Size == 0) {
		return a.Size != 0
	}
	if (a.bind == bindWeak) != (b.bind == bindWeak) {
		return b.bind == bindWeak
	}
	if (a.bind == bindGlobal) != (b.bind == bindGlobal) {
		return a.bind == bindGlobal
	}
	ua, ub := underscores(a.Name), underscores(b.Name)
	if ua != ub {
		return ua < ub
	}
	return len(a.Name) > len(b.Name)
}

func underscores(s string) int { return len(s) - len(strings.TrimLeft(s, "_")) }

package symbol

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ELFInfo is what one ELF file says about itself before any debug file is consulted.
type ELFInfo struct {
	BuildID   string
	Kind      Kind
	Segments  []Segment
	Debuglink string // .gnu_debuglink file name, "" when absent
	DebugCRC  uint32
	HasSymtab bool
	HasDWARF  bool
}

// LoadELF reads an ELF file's symbols (.symtab when present, else .dynsym), build-id,
// segments and DWARF line table.
func LoadELF(r io.ReaderAt) (*Table, error) { return loadELF(r, true) }

func loadELF(r io.ReaderAt, lines bool) (*Table, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("not an ELF file: %w", err)
	}
	defer f.Close()
	info := elfInfo(f)
	t := &Table{BuildID: info.BuildID, Kind: info.Kind, Segments: info.Segments}
	if err := addSymbols(t, f); err != nil {
		return nil, err
	}
	if info.HasDWARF && lines {
		t.Lines, _ = readLines(f) // a broken line table leaves the symbols usable
	}
	t.finish()
	return t, nil
}

// ReadELFInfo reads an ELF file's build-id, segments and debug-link without its symbols.
func ReadELFInfo(r io.ReaderAt) (ELFInfo, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return ELFInfo{}, fmt.Errorf("not an ELF file: %w", err)
	}
	defer f.Close()
	return elfInfo(f), nil
}

func elfInfo(f *elf.File) ELFInfo {
	info := ELFInfo{Kind: KindDyn}
	if f.Type == elf.ET_EXEC {
		info.Kind = KindExec
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			info.Segments = append(info.Segments, Segment{Vaddr: p.Vaddr, Off: p.Off, Filesz: p.Filesz, Memsz: p.Memsz})
		}
	}
	info.BuildID = buildID(f)
	if s := f.Section(".gnu_debuglink"); s != nil && s.Type != elf.SHT_NOBITS {
		if d, err := s.Data(); err == nil {
			if i := bytes.IndexByte(d, 0); i > 0 {
				info.Debuglink = string(d[:i])
				if off := (i + 4) &^ 3; off+4 <= len(d) {
					info.DebugCRC = f.ByteOrder.Uint32(d[off:])
				}
			}
		}
	}
	if s := f.Section(".symtab"); s != nil && s.Type == elf.SHT_SYMTAB {
		info.HasSymtab = true
	}
	if s := f.Section(".debug_line"); s != nil && s.Type != elf.SHT_NOBITS {
		info.HasDWARF = true
	}
	if s := f.Section(".zdebug_line"); s != nil {
		info.HasDWARF = true
	}
	return info
}

// buildID finds the NT_GNU_BUILD_ID note in the note sections (or, in files without section
// headers, the PT_NOTE segments).
func buildID(f *elf.File) string {
	var notes []io.ReaderAt
	var sizes []uint64
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOTE {
			notes, sizes = append(notes, s), append(sizes, s.Size)
		}
	}
	if len(notes) == 0 {
		for _, p := range f.Progs {
			if p.Type == elf.PT_NOTE {
				notes, sizes = append(notes, p), append(sizes, p.Filesz)
			}
		}
	}
	for i, n := range notes {
		if sizes[i] > 1<<20 {
			continue
		}
		d := make([]byte, sizes[i])
		if _, err := n.ReadAt(d, 0); err != nil && !errors.Is(err, io.EOF) {
			continue
		}
		if id := NoteBuildID(d, f.ByteOrder); id != "" {
			return id
		}
	}
	return ""
}

// NoteBuildID finds the NT_GNU_BUILD_ID note in a run of ELF notes (a note section, a
// PT_NOTE segment, or /sys/kernel/notes: the running kernel's) and returns its descriptor
// in lower-case hex, "" when there is none. The one build-id note parser of pmc.
func NoteBuildID(d []byte, bo binary.ByteOrder) string {
	for len(d) >= 12 {
		namesz, descsz, typ := uint64(bo.Uint32(d)), uint64(bo.Uint32(d[4:])), bo.Uint32(d[8:])
		d = d[12:]
		nameEnd := (namesz + 3) &^ 3
		descEnd := nameEnd + (descsz+3)&^3
		if descEnd > uint64(len(d)) || namesz > uint64(len(d)) || nameEnd+descsz > uint64(len(d)) {
			return ""
		}
		if typ == 3 && namesz == 4 && string(d[:4]) == "GNU\x00" {
			return hex.EncodeToString(d[nameEnd : nameEnd+descsz])
		}
		d = d[descEnd:]
	}
	return ""
}

func addSymbols(t *Table, f *elf.File) error {
	thumb := f.Machine == elf.EM_ARM
	syms, n, err := funcSymbols(f, elf.SHT_SYMTAB, thumb, t.Syms)
	t.Source = "symtab"
	if errors.Is(err, elf.ErrNoSymbols) || (err == nil && n == 0) {
		syms, _, err = funcSymbols(f, elf.SHT_DYNSYM, thumb, t.Syms)
		t.Source = "dynsym"
	}
	if errors.Is(err, elf.ErrNoSymbols) {
		t.Source = "none"
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading ELF symbols: %w", err)
	}
	t.Syms = syms
	return nil
}

// funcSymbols appends to out the functions of f's symbol table of type typ (SHT_SYMTAB or
// SHT_DYNSYM), read as debug/elf's Symbols and DynamicSymbols read it (the same errors),
// and returns how many symbols the table has. Only the functions are made: debug/elf
// makes every symbol and its name, most of which a report drops. The names are slices of
// one copy of the string table.
func funcSymbols(f *elf.File, typ elf.SectionType, thumb bool, out []Sym) ([]Sym, int, error) {
	var size int
	switch f.Class {
	case elf.ELFCLASS64:
		size = elf.Sym64Size
	case elf.ELFCLASS32:
		size = elf.Sym32Size
	default:
		return out, 0, errors.New("not implemented")
	}
	sec := f.SectionByType(typ)
	if sec == nil {
		return out, 0, elf.ErrNoSymbols
	}
	data, err := sec.Data()
	if err != nil {
		return out, 0, fmt.Errorf("cannot load symbol section: %w", err)
	}
	if len(data) == 0 {
		return out, 0, elf.ErrNoSymbols
	}
	if len(data)%size != 0 {
		if size == elf.Sym64Size {
			return out, 0, errors.New("length of symbol section is not a multiple of Sym64Size")
		}
		return out, 0, errors.New("length of symbol section is not a multiple of SymSize")
	}
	if sec.Link <= 0 || sec.Link >= uint32(len(f.Sections)) {
		return out, 0, fmt.Errorf("cannot load string table section: %w", errors.New("section has invalid string table link"))
	}
	strdata, err := f.Sections[sec.Link].Data()
	if err != nil {
		return out, 0, fmt.Errorf("cannot load string table section: %w", err)
	}
	data = data[size:] // the first entry is all zeros
	n := len(data) / size
	// Labels (untyped symbols) count as functions in executable sections, as perf has them.
	code := make([]bool, len(f.Sections))
	for i, sec := range f.Sections {
		code[i] = sec.Flags&elf.SHF_EXECINSTR != 0
	}
	// Two passes: the first counts the functions and their names' bytes, so that the
	// symbols and one string of their names are made at their size.
	var funcs, nameBytes int
	for e := data; len(e) > 0; e = e[size:] {
		if sym, ok := elfFunc(e, size, f.ByteOrder, strdata, code); ok {
			funcs++
			nameBytes += len(sym.name)
		}
	}
	out = slices.Grow(out, funcs)
	var names strings.Builder
	names.Grow(nameBytes)
	for e := data; len(e) > 0; e = e[size:] {
		sym, ok := elfFunc(e, size, f.ByteOrder, strdata, code)
		if !ok {
			continue
		}
		if thumb {
			sym.value &^= 1
		}
		start := names.Len()
		names.Write(sym.name)
		// The builder never grows past its first buffer: each name is a slice of it.
		out = append(out, Sym{Addr: sym.value, Size: sym.size, Name: names.String()[start:], bind: uint8(elf.ST_BIND(sym.info))})
	}
	return out, n, nil
}

// elfSym is an entry of an ELF symbol table.
type elfSym struct {
	name        []byte
	info        byte
	value, size uint64
}

// elfFunc reads the symbol table entry e (size bytes): ok when it is a function
// addSymbols keeps (defined, named, not an ARM mapping symbol), or a label in code (an
// untyped symbol of a section code marks executable, such as ld.so's _start: perf takes
// those for functions too).
func elfFunc(e []byte, size int, bo binary.ByteOrder, strtab []byte, code []bool) (s elfSym, ok bool) {
	var name uint32
	var shndx uint16
	if size == elf.Sym64Size {
		name, s.info, shndx = bo.Uint32(e), e[4], bo.Uint16(e[6:])
		s.value, s.size = bo.Uint64(e[8:]), bo.Uint64(e[16:])
	} else {
		name, s.info, shndx = bo.Uint32(e), e[12], bo.Uint16(e[14:])
		s.value, s.size = uint64(bo.Uint32(e[4:])), uint64(bo.Uint32(e[8:]))
	}
	if t := elf.ST_TYPE(s.info); t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC &&
		(t != elf.STT_NOTYPE || int(shndx) >= len(code) || !code[shndx]) {
		return s, false
	}
	if sec := elf.SectionIndex(shndx); sec == elf.SHN_UNDEF || sec >= elf.SHN_LORESERVE && sec != elf.SHN_ABS {
		return s, false
	}
	// debug/elf's getString: "" when the name is outside the table or has no end.
	if uint64(name) >= uint64(len(strtab)) {
		return s, false
	}
	str := strtab[name:]
	i := bytes.IndexByte(str, 0)
	if i <= 0 || str[0] == '$' { // no name, or an ARM mapping symbol
		return s, false
	}
	s.name = str[:i]
	return s, true
}

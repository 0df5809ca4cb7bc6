package symbol

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// units reads the line tables of single compilation units of one ELF file's DWARF: a unit
// is found in .debug_aranges, and only its bytes of .debug_info and its line program of
// .debug_line are read. A compressed section is decompressed once, as far as the units asked
// for so far reach. .debug_abbrev and the string sections a unit's entry may refer to are
// read whole (they are small).
type units struct {
	f        *elf.File
	read     bool
	err      error
	aranges  []byte
	info     *prefixSection
	line     *prefixSection
	sec      [5][]byte // abbrev, str, and the DWARF 5 sections: line_str, str_offsets, addr
	byOffset map[uint64]*Lines
}

func newUnits(f *elf.File) *units { return &units{f: f, byOffset: map[uint64]*Lines{}} }

// lines returns the line table of the unit whose address ranges hold addr. ok is false
// when the file has no address-range entry for addr (no .debug_aranges, a partial one, or a
// relocatable file): the caller then reads the whole table (readLines).
func (u *units) lines(addr uint64) (l *Lines, ok bool, err error) {
	f := u.f
	if f.Type == elf.ET_REL {
		return nil, false, nil // DWARF of relocatable files needs its relocations applied
	}
	if !u.read {
		u.read = true
		u.err = u.load()
	}
	if u.err != nil || u.aranges == nil {
		return nil, false, u.err
	}
	cu, found := arangesUnit(u.aranges, f.ByteOrder, addr)
	if !found {
		return nil, false, nil
	}
	if l, ok := u.byOffset[cu]; ok {
		return l, true, nil
	}
	if l, err = u.unit(cu); err != nil {
		return nil, false, err
	}
	u.byOffset[cu] = l
	return l, true, nil
}

func (u *units) load() error {
	ar := dwarfSection(u.f, "aranges")
	if ar == nil {
		return nil
	}
	var err error
	if u.aranges, err = sectionData(ar); err != nil {
		return err
	}
	for i, name := range []string{"abbrev", "str", "line_str", "str_offsets", "addr"} {
		if u.sec[i], err = sectionData(dwarfSection(u.f, name)); err != nil {
			return err
		}
	}
	u.info, u.line = newPrefixSection(dwarfSection(u.f, "info")), newPrefixSection(dwarfSection(u.f, "line"))
	return nil
}

// data is a dwarf.Data of one unit (info) and its line program (line, nil: none).
func (u *units) data(info, line []byte) (*dwarf.Data, error) {
	d, err := dwarf.New(u.sec[0], nil, nil, info, line, nil, nil, u.sec[1])
	for i, name := range []string{"line_str", "str_offsets", "addr"} {
		if err == nil && u.sec[2+i] != nil {
			err = d.AddSection(".debug_"+name, u.sec[2+i])
		}
	}
	return d, err
}

// unit reads the line table of the unit at offset cu of .debug_info.
func (u *units) unit(cu uint64) (*Lines, error) {
	bo := u.f.ByteOrder
	info, err := u.info.unit(cu, bo)
	if err != nil {
		return nil, fmt.Errorf(".debug_info unit at %#x: %w", cu, err)
	}
	d, err := u.data(info, nil)
	if err != nil {
		return nil, err
	}
	e, err := d.Reader().Next()
	if err != nil {
		return nil, err
	}
	if e == nil || e.Tag != dwarf.TagCompileUnit {
		return nil, fmt.Errorf(".debug_info unit at %#x: not a compilation unit", cu)
	}
	off, isOff := e.Val(dwarf.AttrStmtList).(int64)
	if !isOff {
		return &Lines{}, nil // a unit without a line table
	}
	prog, err := u.line.unit(uint64(off), bo)
	if err != nil {
		return nil, fmt.Errorf(".debug_line program at %#x: %w", off, err)
	}
	// The Data holds the unit's line program alone, so the entry is told it starts at 0.
	if d, err = u.data(info, prog); err != nil {
		return nil, err
	}
	for i := range e.Field {
		if e.Field[i].Attr == dwarf.AttrStmtList {
			e.Field[i].Val = int64(0)
		}
	}
	lr, err := d.LineReader(e)
	if err != nil || lr == nil {
		return nil, err
	}
	l := &Lines{}
	compDir, _ := e.Val(dwarf.AttrCompDir).(string)
	l.addRows(lr, compDir, map[string]int32{})
	l.sortRows()
	return l, nil
}

// prefixSection reads parts of one section: at their offset when it is stored as is, else
// through one decompressing reader whose output so far is kept (a later part before it is
// served from there, one after it decompresses on).
type prefixSection struct {
	s    *elf.Section
	z    io.Reader // nil: read s at the offset
	done []byte
}

func newPrefixSection(s *elf.Section) *prefixSection {
	if s == nil {
		return nil
	}
	p := &prefixSection{s: s}
	if s.Flags&elf.SHF_COMPRESSED != 0 || strings.HasPrefix(s.Name, ".zdebug") {
		p.z = s.Open()
	}
	return p
}

// at returns n bytes from offset off.
func (p *prefixSection) at(off, n uint64) ([]byte, error) {
	if off > p.s.Size || n > p.s.Size-off {
		return nil, fmt.Errorf("%d bytes at %#x: past the end of %s (%d bytes)", n, off, p.s.Name, p.s.Size)
	}
	if p.z == nil {
		b := make([]byte, n)
		_, err := p.s.ReadAt(b, int64(off))
		return b, err
	}
	if end := off + n; end > uint64(len(p.done)) {
		grow := make([]byte, end-uint64(len(p.done)))
		k, err := io.ReadFull(p.z, grow)
		p.done = append(p.done, grow[:k]...)
		if err != nil {
			return nil, err
		}
	}
	return p.done[off : off+n : off+n], nil
}

// unit reads the DWARF unit (a .debug_info unit or a .debug_line program: both start with
// their length) at offset off.
func (p *prefixSection) unit(off uint64, bo binary.ByteOrder) ([]byte, error) {
	if p == nil {
		return nil, errors.New("no such section")
	}
	head, err := p.at(off, 4)
	if err != nil {
		return nil, err
	}
	n, hl := uint64(bo.Uint32(head)), uint64(4)
	if n == 0xffffffff {
		if head, err = p.at(off+4, 8); err != nil {
			return nil, err
		}
		n, hl = bo.Uint64(head), 12
	}
	if n > 1<<30 {
		return nil, fmt.Errorf("unit length %d", n)
	}
	return p.at(off, hl+n)
}

// dwarfSection is f's .debug_NAME (or GNU-compressed .zdebug_NAME) section, nil if none.
func dwarfSection(f *elf.File, name string) *elf.Section {
	for _, p := range []string{".debug_", ".zdebug_"} {
		if s := f.Section(p + name); s != nil && s.Type != elf.SHT_NOBITS {
			return s
		}
	}
	return nil
}

func sectionData(s *elf.Section) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	b, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.Name, err)
	}
	return b, nil
}

// arangesUnit finds the .debug_info offset of the unit whose address ranges hold addr in
// .debug_aranges (DWARF 2-5: a header per unit, then address/length pairs aligned to
// twice the address size, ending with a zero pair).
func arangesUnit(b []byte, bo binary.ByteOrder, addr uint64) (uint64, bool) {
	for len(b) >= 4 {
		n, hl := uint64(bo.Uint32(b)), uint64(4)
		if n == 0xffffffff {
			if len(b) < 12 {
				return 0, false
			}
			n, hl = bo.Uint64(b[4:]), 12
		}
		if n > uint64(len(b))-hl {
			return 0, false
		}
		set := b[:hl+n]
		b = b[hl+n:]
		offSize := uint64(4)
		if hl == 12 {
			offSize = 8
		}
		if uint64(len(set)) < hl+2+offSize+2 {
			continue
		}
		p := hl + 2 // version
		var cu uint64
		if offSize == 4 {
			cu = uint64(bo.Uint32(set[p:]))
		} else {
			cu = bo.Uint64(set[p:])
		}
		p += offSize
		asz, ssz := uint64(set[p]), uint64(set[p+1])
		p += 2
		if asz != 4 && asz != 8 || ssz != 0 {
			continue
		}
		tuple := 2 * asz
		p = (p + tuple - 1) / tuple * tuple
		for ; p+tuple <= uint64(len(set)); p += tuple {
			var start, length uint64
			if asz == 4 {
				start, length = uint64(bo.Uint32(set[p:])), uint64(bo.Uint32(set[p+4:]))
			} else {
				start, length = bo.Uint64(set[p:]), bo.Uint64(set[p+8:])
			}
			if start == 0 && length == 0 {
				break
			}
			if addr >= start && addr-start < length {
				return cu, true
			}
		}
	}
	return 0, false
}

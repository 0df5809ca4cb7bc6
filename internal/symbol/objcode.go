package symbol

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// Object is a DSO whose code is read: its path as the recording names it, the build-id the
// recording saw ("" unknown), whether it is the kernel (or one of its modules), and its
// symbol Table (nil when none; an archive's Table may hold kept code and lines).
type Object struct {
	Path, BuildID string
	Kernel        bool
	Table         *Table
}

// FuncCode is one function's machine code and what decoding it needs.
type FuncCode struct {
	Machine elf.Machine
	Value   uint64    // the function's ELF symbol value (bit 0 set: Thumb)
	Bytes   []byte    // [start, start+size)
	Maps    []CodeMap // code from the archive: the ARM mapping symbols ($a, $t, $d) kept
	// ELFSymbols is the binary's symbol table when the code comes from it (an ARM file's
	// mapping symbols are among them).
	ELFSymbols []elf.Symbol
	// ELF is the binary the code comes from (nil: the archive), for naming addresses as
	// objdump does (disasm.ELFSymbols).
	ELF *elf.File
	// Archived, when the bytes come from the symbol archive, says why the binary could not
	// be used.
	Archived error
}

// CodeReader reads functions' machine code and line tables from the binaries a recording
// names (on its Resolver's FS, build-ids checked), each binary opened once, or from the code
// a symbol archive kept where the binary is missing or changed. Close releases the files.
type CodeReader struct {
	res  *Resolver
	objs map[string]*object
}

// object is one opened binary, or why it could not be used.
type object struct {
	f      *elf.File
	closer io.Closer
	info   ELFInfo
	syms   []elf.Symbol
	err    error
	gone   bool // the recorded binary is missing or changed: the archive's code may stand in
	lines  map[uint64]*Lines
	whole  *Lines // the whole line table, read once when a unit's cannot be found alone
	// dwarf is the file holding the DWARF (f, or the debug file found once: nil when none).
	dwarf       *elf.File
	dwarfClose  func()
	dwarfLooked bool
	units       *units
}

// NewCodeReader returns a CodeReader reading binaries from res's FS and debug files from
// its debug directory.
func NewCodeReader(res *Resolver) *CodeReader {
	return &CodeReader{res: res, objs: map[string]*object{}}
}

// Close releases the binaries opened.
func (c *CodeReader) Close() {
	for _, o := range c.objs {
		if o.dwarfClose != nil {
			o.dwarfClose()
		}
		if o.closer != nil {
			o.closer.Close()
		}
	}
}

func (c *CodeReader) open(o Object) *object {
	key := o.Path + "\x00" + o.BuildID
	if ob, ok := c.objs[key]; ok {
		return ob
	}
	ob := c.openELF(o)
	c.objs[key] = ob
	return ob
}

func (c *CodeReader) openELF(o Object) *object {
	switch {
	case o.Kernel:
		return &object{err: errors.New("no code bytes for kernel functions (pmc reads neither vmlinux nor /proc/kcore)")}
	case strings.HasPrefix(o.Path, "[") || !path.IsAbs(o.Path):
		return &object{err: fmt.Errorf("%s is not a file: no code bytes", o.Path)}
	case c.res == nil || c.res.FS == nil:
		return &object{err: fmt.Errorf("%s: no filesystem", o.Path), gone: true}
	}
	fh, err := c.res.FS.Open(strings.TrimPrefix(path.Clean(o.Path), "/"))
	if err != nil {
		return &object{err: fmt.Errorf("%s: %v", o.Path, errors.Unwrap(err)), gone: true}
	}
	ra, ok := fh.(io.ReaderAt)
	if !ok {
		fh.Close()
		return &object{err: fmt.Errorf("%s: not a regular file", o.Path)}
	}
	info, err := ReadELFInfo(ra)
	if err != nil {
		fh.Close()
		return &object{err: fmt.Errorf("%s: %v", o.Path, err)}
	}
	if o.BuildID != "" && info.BuildID != "" && !strings.EqualFold(o.BuildID, info.BuildID) {
		fh.Close()
		return &object{err: fmt.Errorf("%s changed since the recording (build-id %s, the recording saw %s)", o.Path, info.BuildID, strings.ToLower(o.BuildID)), gone: true}
	}
	f, err := elf.NewFile(ra)
	if err != nil {
		fh.Close()
		return &object{err: fmt.Errorf("%s: %v", o.Path, err)}
	}
	ob := &object{f: f, closer: fh, info: info, lines: map[uint64]*Lines{}}
	ob.syms, _ = f.Symbols()
	return ob
}

// Function reads the code of the function [start, start+size) of o from its binary or, when
// the binary is gone or changed, from the code the symbol archive kept.
func (c *CodeReader) Function(o Object, start, size uint64, name string) (*FuncCode, error) {
	ob := c.open(o)
	if size == 0 {
		return nil, fmt.Errorf("%s: the symbol table gives no size", name)
	}
	if ob.err != nil {
		t := o.Table
		if b, ok := t.CodeAt(start, size); ok && t.Machine != 0 {
			fc := &FuncCode{Machine: elf.Machine(t.Machine), Value: start, Bytes: b, Archived: ob.err}
			for _, m := range t.CodeMaps {
				fc.Maps = append(fc.Maps, m)
				if m.Addr == start && m.Kind == 't' {
					fc.Value |= 1
				}
			}
			return fc, nil
		}
		if ob.gone {
			return nil, fmt.Errorf("%v, and the symbol archive keeps no code of %s (pmc record --embed-symbols keeps it): annotate where the recorded binary is (--symfs DIR)", ob.err, name)
		}
		return nil, ob.err
	}
	fc := &FuncCode{Machine: ob.f.Machine, Value: start, ELFSymbols: ob.syms, ELF: ob.f}
	for _, sec := range ob.f.Sections {
		if sec.Type == elf.SHT_PROGBITS && start >= sec.Addr && start+size <= sec.Addr+sec.Size {
			fc.Bytes = make([]byte, size)
			if _, err := sec.ReadAt(fc.Bytes, int64(start-sec.Addr)); err != nil {
				return nil, fmt.Errorf("%s: reading %s: %v", o.Path, name, err)
			}
			break
		}
	}
	if fc.Bytes == nil {
		return nil, fmt.Errorf("%s: no section holds %s's code (a debug file or a stripped copy?)", o.Path, name)
	}
	for _, s := range ob.syms {
		if s.Value&^1 == start && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			fc.Value = s.Value
			break
		}
	}
	return fc, nil
}

// Lines returns a line table that covers the function at start of o: the Table's own when
// it has one (an archive's), else the line program of the compilation unit holding start,
// read from the binary's DWARF or its separate debug file (the rest of the DWARF is not
// read). nil when there is none.
func (c *CodeReader) Lines(o Object, start uint64) *Lines {
	if o.Table != nil && o.Table.Lines != nil {
		return o.Table.Lines
	}
	ob := c.open(o)
	if ob.err != nil {
		return nil
	}
	if l, ok := ob.lines[start]; ok {
		return l
	}
	var l *Lines
	if f := c.dwarfFile(o, ob); f != nil {
		l = ob.unitLines(f, start)
	}
	ob.lines[start] = l
	return l
}

// dwarfFile is the ELF file holding ob's DWARF: the binary, or its separate debug file.
func (c *CodeReader) dwarfFile(o Object, ob *object) *elf.File {
	if ob.dwarfLooked {
		return ob.dwarf
	}
	ob.dwarfLooked = true
	if ob.info.HasDWARF {
		ob.dwarf = ob.f
		return ob.f
	}
	if c.res == nil {
		return nil
	}
	c.res.eachDebugFile(o.Path, ob.info, func(ra io.ReaderAt, _ string, closer func()) bool {
		f, err := elf.NewFile(ra)
		if err != nil || dwarfSection(f, "line") == nil {
			closer()
			return false
		}
		ob.dwarf, ob.dwarfClose = f, closer
		return true
	})
	return ob.dwarf
}

// unitLines is the line table of f's unit holding start, or f's whole table when the unit
// cannot be found alone (read once).
func (ob *object) unitLines(f *elf.File, start uint64) *Lines {
	if ob.units == nil {
		ob.units = newUnits(f)
	}
	if l, ok, err := ob.units.lines(start); ok && err == nil {
		return l
	}
	if ob.whole == nil {
		ob.whole, _ = readLines(f)
		if ob.whole == nil {
			ob.whole = &Lines{}
		}
	}
	return ob.whole
}

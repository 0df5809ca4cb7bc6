package cli

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/pmc-tools/pmc/internal/disasm"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// codeReader reads functions' machine code from the binaries a recording names, once per
// DSO, and decodes it.
type codeReader struct {
	fsys  fs.FS
	dsos  map[*profile.DSO]*elfCode
	said  map[*profile.DSO]bool
	notes []string // once per DSO whose code came from the archive
}

// elfCode is one opened binary (or why it could not be used).
type elfCode struct {
	f       *elf.File
	closer  io.Closer
	syms    []elf.Symbol
	mapping []disasm.MapSym
	err     error
	gone    bool // the recorded binary is missing or changed: the archive's code may stand in
}

// funcCode is one decoded function.
type funcCode struct {
	insts []disasm.Inst
}

func newCodeReader(symfs string) *codeReader {
	if symfs == "" {
		symfs = "/"
	}
	return &codeReader{fsys: os.DirFS(symfs), dsos: map[*profile.DSO]*elfCode{}, said: map[*profile.DSO]bool{}}
}

// close releases the binaries opened.
func (c *codeReader) close() {
	for _, d := range c.dsos {
		if d.closer != nil {
			d.closer.Close()
		}
	}
}

func (c *codeReader) open(d *profile.DSO) *elfCode {
	if ec, ok := c.dsos[d]; ok {
		return ec
	}
	ec := c.openELF(d)
	c.dsos[d] = ec
	return ec
}

func (c *codeReader) openELF(d *profile.DSO) *elfCode {
	switch {
	case d.Kernel:
		return &elfCode{err: errors.New("no code bytes for kernel functions (pmc reads neither vmlinux nor /proc/kcore)")}
	case strings.HasPrefix(d.Name, "[") || !path.IsAbs(d.Name):
		return &elfCode{err: fmt.Errorf("%s is not a file: no code bytes", d.Name)}
	}
	fh, err := c.fsys.Open(strings.TrimPrefix(path.Clean(d.Name), "/"))
	if err != nil {
		return &elfCode{err: fmt.Errorf("%s: %v", d.Name, errors.Unwrap(err)), gone: true}
	}
	ra, ok := fh.(io.ReaderAt)
	if !ok {
		fh.Close()
		return &elfCode{err: fmt.Errorf("%s: not a regular file", d.Name)}
	}
	info, err := symbol.ReadELFInfo(ra)
	if err != nil {
		fh.Close()
		return &elfCode{err: fmt.Errorf("%s: %v", d.Name, err)}
	}
	if d.BuildID != "" && info.BuildID != "" && !strings.EqualFold(d.BuildID, info.BuildID) {
		fh.Close()
		return &elfCode{err: fmt.Errorf("%s changed since the recording (build-id %s, the recording saw %s)", d.Name, info.BuildID, strings.ToLower(d.BuildID)), gone: true}
	}
	f, err := elf.NewFile(ra)
	if err != nil {
		fh.Close()
		return &elfCode{err: fmt.Errorf("%s: %v", d.Name, err)}
	}
	ec := &elfCode{f: f, closer: fh}
	ec.syms, _ = f.Symbols()
	if f.Machine == elf.EM_ARM {
		ec.mapping = disasm.Mapping(ec.syms)
	}
	return ec
}

// funcBytes is a function's machine code and what decoding it needs.
type funcBytes struct {
	machine elf.Machine
	value   uint64 // the symbol's ELF value (bit 0 set: Thumb)
	code    []byte
	mapping []disasm.MapSym // ARM mapping symbols of the file
	archive bool            // taken from the symbol archive
}

// raw reads sym's code from its binary or, when the binary is gone or changed, from the
// symbol archive's kept code.
func (c *codeReader) raw(sym *profile.Symbol) (*funcBytes, error) {
	ec := c.open(sym.DSO)
	if sym.Size == 0 {
		return nil, fmt.Errorf("%s: the symbol table gives no size", sym.Name)
	}
	if ec.err != nil {
		t := sym.DSO.Table
		if b, ok := t.CodeAt(sym.Start, sym.Size); ok && t.Machine != 0 {
			rc := &funcBytes{machine: elf.Machine(t.Machine), value: sym.Start, code: b, archive: true}
			for _, m := range t.CodeMaps {
				rc.mapping = append(rc.mapping, disasm.MapSym{Addr: m.Addr, Kind: m.Kind})
				if m.Addr == sym.Start && m.Kind == 't' {
					rc.value |= 1
				}
			}
			return rc, nil
		}
		if ec.gone {
			return nil, fmt.Errorf("%v, and the symbol archive keeps no code of %s (pmc record --embed-symbols keeps it): annotate where the recorded binary is (--symfs DIR)", ec.err, sym.Name)
		}
		return nil, ec.err
	}
	rc := &funcBytes{machine: ec.f.Machine, value: sym.Start, mapping: ec.mapping}
	for _, sec := range ec.f.Sections {
		if sec.Type == elf.SHT_PROGBITS && sym.Start >= sec.Addr && sym.Start+sym.Size <= sec.Addr+sec.Size {
			rc.code = make([]byte, sym.Size)
			if _, err := sec.ReadAt(rc.code, int64(sym.Start-sec.Addr)); err != nil {
				return nil, fmt.Errorf("%s: reading %s: %v", sym.DSO.Name, sym.Name, err)
			}
			break
		}
	}
	if rc.code == nil {
		return nil, fmt.Errorf("%s: no section holds %s's code (a debug file or a stripped copy?)", sym.DSO.Name, sym.Name)
	}
	for _, s := range ec.syms {
		if s.Value&^1 == sym.Start && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			rc.value = s.Value
			break
		}
	}
	return rc, nil
}

// function decodes the code of sym.
func (c *codeReader) function(sym *profile.Symbol) (*funcCode, error) {
	rc, err := c.raw(sym)
	if err != nil {
		return nil, err
	}
	arch, ok := disasm.ArchOf(rc.machine, rc.value)
	if !ok {
		return nil, fmt.Errorf("%s: machine %v: pmc decodes x86-64, arm64, ARM and Thumb-2 only", sym.DSO.Name, rc.machine)
	}
	if rc.archive && !c.said[sym.DSO] {
		c.said[sym.DSO] = true
		c.notes = append(c.notes, fmt.Sprintf("%v: its code comes from the symbol archive", c.dsos[sym.DSO].err))
	}
	opt := &disasm.Options{Mapping: rc.mapping}
	if t := sym.DSO.Table; t != nil {
		opt.Symbols = func(a uint64) (string, uint64, bool) {
			s := t.Lookup(a)
			if s == nil {
				return "", 0, false
			}
			return s.Name, s.Addr, true
		}
	}
	return &funcCode{insts: disasm.Decode(arch, sym.Start, rc.code, opt)}, nil
}

// keepCode returns copies of tables with the machine code of the functions samples hit
// (Stack[0]) read from the binaries (under symfs), for the symbol archive; the kernel's and those whose
// binary cannot be read are returned as they are.
func keepCode(p *profile.Profile, tables []*symbol.Table, symfs string) []*symbol.Table {
	c := newCodeReader(symfs)
	defer c.close()
	hit := map[*symbol.Table][]*profile.Symbol{}
	seen := map[*profile.Symbol]bool{}
	for i := range p.Samples {
		if st := p.Samples[i].Stack; len(st) > 0 {
			if l := st[0]; l.Sym != nil && !l.Sym.Unknown && !l.DSO.Kernel && l.DSO.Table != nil && !seen[l.Sym] {
				seen[l.Sym] = true
				hit[l.DSO.Table] = append(hit[l.DSO.Table], l.Sym)
			}
		}
	}
	out := make([]*symbol.Table, len(tables))
	for i, t := range tables {
		out[i] = t
		var k *symbol.Table
		for _, s := range hit[t] {
			rc, err := c.raw(s)
			if err != nil || rc.archive {
				continue
			}
			if k == nil {
				cp := *t
				k = &cp
				k.Machine, k.Code, k.CodeMaps = uint16(rc.machine), nil, nil
			}
			k.Code = append(k.Code, symbol.Code{Addr: s.Start, Bytes: rc.code})
			for _, m := range rc.mapping {
				if m.Addr >= s.Start && m.Addr < s.Start+s.Size {
					k.CodeMaps = append(k.CodeMaps, symbol.CodeMap{Addr: m.Addr, Kind: m.Kind})
				}
			}
		}
		if k != nil {
			out[i] = k
		}
	}
	return out
}

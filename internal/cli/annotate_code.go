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
	fsys fs.FS
	dsos map[*profile.DSO]*elfCode
}

// elfCode is one opened binary (or why it could not be used).
type elfCode struct {
	f       *elf.File
	closer  io.Closer
	syms    []elf.Symbol
	mapping []disasm.MapSym
	err     error
}

// funcCode is one decoded function.
type funcCode struct {
	insts []disasm.Inst
}

func newCodeReader(symfs string) *codeReader {
	if symfs == "" {
		symfs = "/"
	}
	return &codeReader{fsys: os.DirFS(symfs), dsos: map[*profile.DSO]*elfCode{}}
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
		return &elfCode{err: fmt.Errorf("%s: %v, and the symbol archive holds no code bytes: annotate where the binary is (or point --symfs at a copy)", d.Name, errors.Unwrap(err))}
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
		return &elfCode{err: fmt.Errorf("%s changed since the recording (build-id %s, the recording saw %s): its code is not what ran; annotate where the recorded binary is (--symfs DIR)", d.Name, info.BuildID, strings.ToLower(d.BuildID))}
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

// function decodes the code of sym.
func (c *codeReader) function(sym *profile.Symbol) (*funcCode, error) {
	ec := c.open(sym.DSO)
	if ec.err != nil {
		return nil, ec.err
	}
	if sym.Size == 0 {
		return nil, fmt.Errorf("%s: the symbol table gives no size", sym.Name)
	}
	var code []byte
	for _, sec := range ec.f.Sections {
		if sec.Type == elf.SHT_PROGBITS && sym.Start >= sec.Addr && sym.Start+sym.Size <= sec.Addr+sec.Size {
			code = make([]byte, sym.Size)
			if _, err := sec.ReadAt(code, int64(sym.Start-sec.Addr)); err != nil {
				return nil, fmt.Errorf("%s: reading %s: %v", sym.DSO.Name, sym.Name, err)
			}
			break
		}
	}
	if code == nil {
		return nil, fmt.Errorf("%s: no section holds %s's code (a debug file or a stripped copy?)", sym.DSO.Name, sym.Name)
	}
	value := sym.Start
	for _, s := range ec.syms {
		if s.Value&^1 == sym.Start && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			value = s.Value
			break
		}
	}
	arch, ok := disasm.ArchOf(ec.f.Machine, value)
	if !ok {
		return nil, fmt.Errorf("%s: machine %v: pmc decodes x86-64, arm64, ARM and Thumb-2 only", sym.DSO.Name, ec.f.Machine)
	}
	opt := &disasm.Options{Mapping: ec.mapping}
	if t := sym.DSO.Table; t != nil {
		opt.Symbols = func(a uint64) (string, uint64, bool) {
			s := t.Lookup(a)
			if s == nil {
				return "", 0, false
			}
			return s.Name, s.Addr, true
		}
	}
	return &funcCode{insts: disasm.Decode(arch, sym.Start, code, opt)}, nil
}

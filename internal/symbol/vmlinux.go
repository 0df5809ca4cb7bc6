package symbol

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"strings"
)

// OpenVmlinux reads the kernel image at path (perf report --vmlinux) into the kernel's Table.
func OpenVmlinux(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := LoadVmlinux(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.Path = path
	return t, nil
}

// LoadVmlinux reads a kernel image (an ELF vmlinux with its symbol table) into the
// kernel's Table: the functions and the code labels (untyped symbols: the kernel's assembly
// entry points, as in /proc/kallsyms) of its executable sections, and the address of
// _text, from which the recording's kernel mapping relocates it (MapAddr).
func LoadVmlinux(r io.ReaderAt) (*Table, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("not an ELF file: %w", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("reading the kernel's symbols: %w (a vmlinux with its symbol table is needed, not a compressed vmlinuz)", err)
	}
	t := &Table{Kind: KindKernel, BuildID: buildID(f), Source: "vmlinux"}
	for _, s := range syms {
		if s.Name == "_text" {
			t.Text = s.Value
		}
		if s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE || int(s.Section) >= len(f.Sections) || s.Name == "" || strings.HasPrefix(s.Name, "$") {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		switch typ := elf.ST_TYPE(s.Info); {
		case typ == elf.STT_FUNC, typ == elf.STT_GNU_IFUNC:
		case typ == elf.STT_NOTYPE && elf.ST_VISIBILITY(s.Other) != elf.STV_HIDDEN && elf.ST_VISIBILITY(s.Other) != elf.STV_INTERNAL:
		default:
			continue
		}
		t.Syms = append(t.Syms, Sym{Addr: s.Value, Size: s.Size, Name: s.Name, bind: uint8(elf.ST_BIND(s.Info))})
	}
	if len(t.Syms) == 0 {
		return nil, fmt.Errorf("no kernel functions in its symbol table")
	}
	t.finish()
	return t, nil
}

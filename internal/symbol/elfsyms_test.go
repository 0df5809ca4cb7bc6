package symbol

import (
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// elfFuncsByLibrary is addSymbols as it was, through debug/elf's Symbols and
// DynamicSymbols: the reader addSymbols must agree with.
func elfFuncsByLibrary(f *elf.File) ([]Sym, string, error) {
	syms, err := f.Symbols()
	source := "symtab"
	if errors.Is(err, elf.ErrNoSymbols) || (err == nil && len(syms) == 0) {
		syms, err = f.DynamicSymbols()
		source = "dynsym"
	}
	if errors.Is(err, elf.ErrNoSymbols) {
		return nil, "none", nil
	}
	if err != nil {
		return nil, source, fmt.Errorf("reading ELF symbols: %w", err)
	}
	var out []Sym
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		label := typ == elf.STT_NOTYPE && int(s.Section) < len(f.Sections) && f.Sections[s.Section].Flags&elf.SHF_EXECINSTR != 0
		if typ != elf.STT_FUNC && typ != elf.STT_GNU_IFUNC && !label {
			continue
		}
		if s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE && s.Section != elf.SHN_ABS || s.Name == "" {
			continue
		}
		if strings.HasPrefix(s.Name, "$") {
			continue
		}
		addr := s.Value
		if f.Machine == elf.EM_ARM {
			addr &^= 1
		}
		out = append(out, Sym{Addr: addr, Size: s.Size, Name: s.Name, bind: uint8(elf.ST_BIND(s.Info))})
	}
	return out, source, nil
}

// TestFuncSymbolsAgree: on the machine's executables, libraries, debug files and ARM
// cross libraries (Thumb), addSymbols lists what debug/elf's symbol lists give.
func TestFuncSymbolsAgree(t *testing.T) {
	var files []string
	for _, g := range []string{"/bin/*", "/usr/lib/x86_64-linux-gnu/*.so*", "/usr/lib/debug/.build-id/*/*.debug",
		"/usr/arm-linux-gnueabihf/lib/*.so*", "/usr/aarch64-linux-gnu/lib/*.so*", "/usr/lib/i386-linux-gnu/*.so*"} {
		m, _ := filepath.Glob(g)
		if len(m) > 40 {
			m = m[:40]
		}
		files = append(files, m...)
	}
	checked := 0
	for _, p := range files {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		want, wantSrc, werr := elfFuncsByLibrary(f)
		var tab Table
		gerr := addSymbols(&tab, f)
		f.Close()
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || tab.Source != wantSrc || !reflect.DeepEqual(tab.Syms, want) && len(want)+len(tab.Syms) > 0 {
			t.Errorf("%s: %d symbols from %s (%v), want %d from %s (%v)", p, len(tab.Syms), tab.Source, gerr, len(want), wantSrc, werr)
		}
		checked++
	}
	if checked < 20 {
		t.Skipf("only %d ELF files found to compare", checked)
	}
	t.Logf("%d ELF files agree", checked)
}

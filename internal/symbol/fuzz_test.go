package symbol

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// The parsers of outside input (ELF files, kallsyms, perf maps, archive members) must
// return an error on anything malformed, never panic or hang.

func FuzzLoadELF(f *testing.F) {
	if data, err := os.ReadFile("/bin/true"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if tab, err := LoadELF(bytes.NewReader(data)); err == nil {
			tab.Resolve(0x1000)
		}
		// The symbol reader agrees with debug/elf's lists.
		if f, err := elf.NewFile(bytes.NewReader(data)); err == nil {
			want, wantSrc, werr := elfFuncsByLibrary(f)
			var tab Table
			gerr := addSymbols(&tab, f)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || tab.Source != wantSrc || !reflect.DeepEqual(tab.Syms, want) && len(want)+len(tab.Syms) > 0 {
				t.Errorf("%d symbols from %s (%v), want %d from %s (%v)", len(tab.Syms), tab.Source, gerr, len(want), wantSrc, werr)
			}
		}
	})
}

func FuzzParseKallsyms(f *testing.F) {
	f.Add([]byte(kallsymsSample))
	f.Add([]byte("ffffffff81000000 T a\t[m]\nffffffff81000010 t b \t [m]\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ParseKallsyms(data)
		if err == nil {
			tab.Lookup(0xffffffff81000000)
		}
		compareKallsyms(t, data)
		// The fast line reader agrees with the plain one (a Scanner and strings.Fields),
		// except that the plain one cannot take lines over 1 MB.
		if len(data) < 1<<20 {
			want, werr := parseKallsymsFields(data)
			if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(tab, want) {
				t.Errorf("got %v (%v), want %v (%v)", tab, err, want, werr)
			}
		}
	})
}

func FuzzParsePerfMap(f *testing.F) {
	f.Add([]byte("7f0000001000 40 foo\n0x10 0x20 bar baz\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if tab, err := ParsePerfMap(data); err == nil {
			tab.Lookup(0x7f0000001010)
		}
	})
}

func FuzzParseTable(f *testing.F) {
	k, _ := ParseKallsyms([]byte(kallsymsSample))
	var b bytes.Buffer
	k.Marshal(&b)
	f.Add(b.Bytes())
	f.Add([]byte("pmcsym v1\npath /x\nkind dyn\nseg 0 0 10 10\nsym 0 4 f\nfile 0 /a.c\nline 0 0 3\nline 4 -1 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ParseTable(data)
		if err != nil {
			return
		}
		tab.Resolve(2)
		// What parses must survive a round trip.
		var out bytes.Buffer
		if err := tab.Marshal(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := ParseTable(out.Bytes()); err != nil {
			t.Fatalf("re-reading the marshalled table: %v\n%s", err, out.Bytes())
		}
	})
}

// FuzzArchive: any bytes as a symbol archive (pmc report opens FILE.pmcsym by itself) give an
// archive or an error within the limits: no panic, no hang, nothing read past the bounds.
func FuzzArchive(f *testing.F) {
	k, _ := ParseKallsyms([]byte(kallsymsSample))
	prog := &Table{Path: "/x", Kind: KindDyn, Syms: []Sym{{Addr: 0x10, Size: 4, Name: "f"}}}
	var good bytes.Buffer
	WriteArchive(&good, []*Table{prog, k})
	f.Add(good.Bytes())
	f.Add(zipOf(f, member{"dso/0", tableText("/a", 2000), false}, member{"dso/1", []byte("junk"), true}))
	lim := ArchiveLimits{Member: 1 << 20, Total: 2 << 20, Ratio: 100, RatioFloor: 64 << 10, Members: 64}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := openArchive(bytes.NewReader(data), int64(len(data)), lim)
		if err != nil {
			return
		}
		for _, tab := range a.Tables() {
			if _, ok := a.Table("", tab.Path); !ok {
				t.Fatalf("table of %q not found by its path", tab.Path)
			}
			tab.Resolve(0x10)
		}
	})
}

// FuzzUnitLines: one unit's line table, and a kernel image's symbols, from any ELF file.
func FuzzUnitLines(f *testing.F) {
	if data, err := os.ReadFile("/bin/true"); err == nil {
		f.Add(data, uint64(0x1000))
	}
	if _, err := exec.LookPath("cc"); err == nil {
		p := filepath.Join(f.TempDir(), "prog")
		if exec.Command("cc", "-g", "-O1", "-gz=zlib", "-o", p, filepath.Join("testdata", "prog.c"), filepath.Join("testdata", "unit2.c")).Run() == nil {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data, uint64(0x1140))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, addr uint64) {
		if ef, err := elf.NewFile(bytes.NewReader(data)); err == nil {
			u := newUnits(ef)
			u.lines(addr)
			u.lines(addr + 0x40)
		}
		LoadVmlinux(bytes.NewReader(data))
	})
}

// FuzzAranges: .debug_aranges of any bytes.
func FuzzAranges(f *testing.F) {
	f.Add([]byte("\x2c\x00\x00\x00\x02\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x20\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), uint64(0x1010))
	f.Add([]byte("\xff\xff\xff\xff\x10\x00\x00\x00\x00\x00\x00\x00"), uint64(0))
	f.Fuzz(func(t *testing.T, data []byte, addr uint64) {
		arangesUnit(data, binary.LittleEndian, addr)
		arangesUnit(data, binary.BigEndian, addr)
	})
}

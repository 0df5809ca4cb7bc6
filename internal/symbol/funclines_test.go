package symbol

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// checkUnitLines: for every function of the ELF file at p (every nth with step), the line
// table of its unit alone (unitLines) gives each of its addresses the file and line the
// whole table gives (readLines, what objdump -l agrees with: TestLines).
func checkUnitLines(t *testing.T, p string, symbols *Table, step int) {
	t.Helper()
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := elf.NewFile(fh)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := readLines(f)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	u := newUnits(f)
	for i := 0; i < len(symbols.Syms); i += step {
		s := symbols.Syms[i]
		if f, _ := whole.Lookup(s.Addr); f == "" {
			continue // no line information (crt files, assembly)
		}
		l, ok, err := u.lines(s.Addr)
		if err != nil || !ok {
			t.Fatalf("%s: %s at %#x: unit not read alone (ok %v, %v)", p, s.Name, s.Addr, ok, err)
		}
		for a := s.Addr; a < s.End(); a++ {
			wf, wl := whole.Lookup(a)
			uf, ul := l.Lookup(a)
			if wf != uf || wl != ul {
				t.Fatalf("%s: %s+%#x: unit table %s:%d, whole table %s:%d", p, s.Name, a-s.Addr, uf, ul, wf, wl)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatalf("%s: no function with line information", p)
	}
	t.Logf("%s: %d functions agree", filepath.Base(p), checked)
}

func TestUnitLines(t *testing.T) {
	need(t, "cc")
	for _, flags := range [][]string{
		{"-g", "-O1"},
		{"-g", "-O2", "-gdwarf-4"},
		{"-g", "-O2", "-gdwarf-5", "-gz=zlib"}, // compressed sections
		{"-g", "-O0", "-no-pie"},
	} {
		t.Run(fmt.Sprint(flags), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "prog")
			args := append(append([]string{}, flags...), "-o", p, filepath.Join("testdata", "prog.c"), filepath.Join("testdata", "unit2.c"))
			if b, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
				t.Fatalf("cc %v: %v\n%s", args, err, b)
			}
			checkUnitLines(t, p, loadFile(t, p), 1)
		})
	}
}

// TestUnitLinesLibc: the same on the C library's separate debug file (Debian's libc6-dbg:
// DWARF 5, compressed, hundreds of units), every 40th function.
func TestUnitLinesLibc(t *testing.T) {
	const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
	fh, err := os.Open(libc)
	if err != nil {
		t.Skipf("no %s on this machine", libc)
	}
	info, err := ReadELFInfo(fh)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	dbg := filepath.Join("/usr/lib/debug/.build-id", info.BuildID[:2], info.BuildID[2:]+".debug")
	if _, err := os.Stat(dbg); err != nil {
		t.Skipf("no debug file for %s (apt-get install libc6-dbg): %v", libc, err)
	}
	checkUnitLines(t, dbg, loadFile(t, dbg), 40)
}

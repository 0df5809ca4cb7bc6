package symbol

import (
	"fmt"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// checkAgainstNM asserts that every text symbol nm lists is found at its address, with nm's
// name or the name of an alias at the same address (in syms or aliases).
func checkAgainstNM(t *testing.T, tab *Table, syms []nmSym, aliases ...nmSym) {
	t.Helper()
	if len(syms) < 3 {
		t.Fatalf("nm listed %d text symbols", len(syms))
	}
	atAddr := map[uint64]map[string]bool{}
	for _, s := range append(aliases, syms...) {
		if atAddr[s.addr] == nil {
			atAddr[s.addr] = map[string]bool{}
		}
		atAddr[s.addr][s.name] = true
	}
	bad := 0
	for _, s := range syms {
		got := tab.Lookup(s.addr)
		switch {
		case got == nil:
			t.Errorf("%s at %#x: not found", s.name, s.addr)
		case got.Addr != s.addr:
			t.Errorf("%s at %#x: found %s at %#x", s.name, s.addr, got.Name, got.Addr)
		case !atAddr[s.addr][unversioned(got.Name)]:
			t.Errorf("%s at %#x: found %s, which nm does not list there", s.name, s.addr, got.Name)
		default:
			continue
		}
		if bad++; bad > 10 {
			t.Fatal("too many mismatches")
		}
	}
}

// unversioned drops a symbol version (a debug file's symtab has "fclose@@GLIBC_2.2.5").
func unversioned(name string) string {
	n, _, _ := strings.Cut(name, "@")
	return n
}

func execSegment(t *testing.T, tab *Table, addr uint64) Segment {
	for _, s := range tab.Segments {
		if addr >= s.Vaddr && addr < s.Vaddr+s.Filesz {
			return s
		}
	}
	t.Fatalf("no segment holds %#x", addr)
	return Segment{}
}

// mapped simulates the loader: the segment holding addr mapped at base+vaddr (page-aligned)
// from its page-aligned file offset; it returns the process address and the mmap record.
func mapped(t *testing.T, tab *Table, base, addr uint64) (ip, start, pgoff uint64) {
	s := execSegment(t, tab, addr)
	return base + addr, base + s.Vaddr&^0xfff, s.Off &^ 0xfff
}

func TestStaticWorkloadAgreesWithNM(t *testing.T) {
	need(t, "nm", "readelf")
	bin := testenv.Workload(t, "loop")
	tab := loadFile(t, bin)
	if tab.Kind != KindExec || tab.Source != "symtab" {
		t.Fatalf("kind %s source %s, want exec from symtab", tab.Kind, tab.Source)
	}
	if want := readelfBuildID(t, bin); tab.BuildID != want {
		t.Errorf("build-id %q, readelf says %q", tab.BuildID, want)
	}
	syms := nmFuncs(t, bin)
	checkAgainstNM(t, tab, syms)
	// A sample inside main, through the mmap record of a non-PIE executable.
	for _, s := range syms {
		if s.name != "main" {
			continue
		}
		sym := tab.Lookup(s.addr)
		ip, start, pgoff := mapped(t, tab, 0, s.addr+sym.Size/2)
		if a := tab.MapAddr(ip, start, pgoff); a != s.addr+sym.Size/2 {
			t.Errorf("MapAddr(%#x, %#x, %#x) = %#x, want %#x", ip, start, pgoff, a, s.addr+sym.Size/2)
		}
		if got := tab.Lookup(s.addr + sym.Size - 1); got == nil || got.Name != "main" {
			t.Errorf("last byte of main: %v", got)
		}
		return
	}
	t.Fatal("nm lists no main")
}

// addr2lineAt runs addr2line once for many addresses and returns "file:line" per address
// (discriminators dropped, paths cleaned: Go's DWARF reader joins directories with path.Join,
// addr2line keeps "./libio/./libio/fileops.c" as written).
func addr2lineAt(t *testing.T, tool, file string, addrs []uint64) []string {
	args := []string{"-e", file}
	for _, a := range addrs {
		args = append(args, fmt.Sprintf("%#x", a))
	}
	out := strings.Split(strings.TrimSpace(run(t, tool, args...)), "\n")
	if len(out) != len(addrs) {
		t.Fatalf("addr2line gave %d lines for %d addresses", len(out), len(addrs))
	}
	for i, l := range out {
		l, _, _ = strings.Cut(l, " (discriminator")
		if f, line, ok := strings.Cut(l, ":"); ok && f != "??" {
			l = path.Clean(f) + ":" + line
		}
		out[i] = l
	}
	return out
}

func checkLines(t *testing.T, tab *Table, tool, file string, addrs []uint64) {
	t.Helper()
	want := addr2lineAt(t, tool, file, addrs)
	bad := 0
	for i, a := range addrs {
		f, l := tab.Lines.Lookup(a)
		got := fmt.Sprintf("%s:%d", f, l)
		if f == "" {
			got = "??:0"
		}
		if got != want[i] && !(f == "" && strings.HasPrefix(want[i], "??")) {
			t.Errorf("%#x: %s, addr2line says %s", a, got, want[i])
			if bad++; bad > 10 {
				t.Fatal("too many mismatches")
			}
		}
	}
}

func TestPIEWithDWARFAgreesWithAddr2line(t *testing.T) {
	need(t, "nm", "addr2line")
	bin := compile(t, "cc", "prog.c", "prog", "-g", "-O1", "-fPIE", "-pie")
	tab := loadFile(t, bin)
	if tab.Kind != KindDyn || tab.Lines == nil {
		t.Fatalf("kind %s, lines %v: want a PIE with a line table", tab.Kind, tab.Lines != nil)
	}
	syms := nmFuncs(t, bin)
	checkAgainstNM(t, tab, syms)
	var addrs []uint64
	for _, s := range syms {
		if s.name == "main" || s.name == "middle" || s.name == "leaf" {
			sym := tab.Lookup(s.addr)
			for a := sym.Addr; a < sym.End(); a++ {
				addrs = append(addrs, a)
			}
			// The process address of a PIE, mapped at a typical base.
			ip, start, pgoff := mapped(t, tab, 0x555555554000, s.addr+2)
			if got := tab.Resolve(tab.MapAddr(ip, start, pgoff)); got.Sym != sym || got.Offset != 2 {
				t.Errorf("%s+2 through the mmap: %+v", s.name, got)
			}
		}
	}
	if len(addrs) < 20 {
		t.Fatalf("only %d addresses in main, middle, leaf", len(addrs))
	}
	checkLines(t, tab, "addr2line", bin, addrs)
	f, l := tab.Lines.Lookup(tab.Lookup(addrs[0]).Addr)
	if !strings.HasSuffix(f, "testdata/prog.c") || l == 0 {
		t.Errorf("line of a function start: %s:%d", f, l)
	}
}

func TestLibcAgreesWithNM(t *testing.T) {
	need(t, "nm", "readelf", "addr2line")
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		t.Skip("no x86_64 libc")
	}
	r := NewResolver(os.DirFS("/"))
	id := readelfBuildID(t, libc)
	tab, err := r.Open(libc, id)
	if err != nil {
		t.Fatal(err)
	}
	if tab.BuildID != id || tab.Kind != KindDyn {
		t.Fatalf("build-id %s kind %s, want %s dyn", tab.BuildID, tab.Kind, id)
	}
	dyn := nmFuncs(t, "-D", libc)
	dbg := "/usr/lib/debug/.build-id/" + id[:2] + "/" + id[2:] + ".debug"
	if _, err := os.Stat(dbg); err != nil {
		testenv.MissingPart(t, "no libc6-dbg (scripts/deps.sh installs it): libc's symtab and lines not checked, its dynsym only (%s)", tab.Source)
		checkAgainstNM(t, tab, dyn)
		return
	}
	if tab.Source != dbg || tab.Lines == nil {
		t.Fatalf("source %s, lines %v: want the build-id debug file's symtab and lines", tab.Source, tab.Lines != nil)
	}
	full := nmFuncs(t, dbg)
	checkAgainstNM(t, tab, full)
	checkAgainstNM(t, tab, dyn, full...)
	var addrs []uint64
	for i, s := range dyn {
		if i%20 == 0 {
			addrs = append(addrs, s.addr, s.addr+5)
		}
	}
	// GNU addr2line 2.40 takes some of libc's DWARF 5 file entries for the unit's primary
	// file (strtol.c:98 becomes sysdeps/wordsize-64/strtol.c:98, objdump --dwarf=decodedline
	// shows strtol.c); LLVM's agrees with the line program, so it is the reference here.
	testenv.Tool(t, "llvm-addr2line") // Debian's llvm package
	checkLines(t, tab, "llvm-addr2line", dbg, addrs)
	if again, _ := r.Open(libc, id); again != tab {
		t.Error("second Open read libc again instead of using the cache")
	}
}

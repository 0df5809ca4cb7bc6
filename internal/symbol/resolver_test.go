package symbol

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func sh(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// stripped builds the test PIE with DWARF and returns it with its debug part and a stripped
// copy (no .symtab, no DWARF) carrying a debug-link to "prog.debug".
func stripped(t *testing.T) (full, debug, bare string) {
	need(t, "objcopy", "strip")
	full = compile(t, "cc", "prog.c", "prog", "-g", "-O1", "-fPIE", "-pie")
	dir := filepath.Dir(full)
	debug, bare = filepath.Join(dir, "prog.debug"), filepath.Join(dir, "prog.stripped")
	sh(t, "objcopy", "--only-keep-debug", full, debug)
	sh(t, "strip", "--strip-all", "-o", bare, full)
	sh(t, "objcopy", "--add-gnu-debuglink="+debug, bare)
	return full, debug, bare
}

func put(t *testing.T, root, p, from string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sameSymbols(t *testing.T, got, want *Table) {
	t.Helper()
	if len(got.Syms) != len(want.Syms) {
		t.Fatalf("%d symbols from %s, %d in the unstripped file", len(got.Syms), got.Source, len(want.Syms))
	}
	for i := range want.Syms {
		if got.Syms[i].Addr != want.Syms[i].Addr || got.Syms[i].Name != want.Syms[i].Name || got.Syms[i].Size != want.Syms[i].Size {
			t.Fatalf("symbol %d: %+v, unstripped %+v", i, got.Syms[i], want.Syms[i])
		}
	}
	if got.Lines == nil || len(got.Lines.Rows) != len(want.Lines.Rows) {
		t.Fatalf("line table from %s missing or different", got.Source)
	}
}

func TestDebugFiles(t *testing.T) {
	full, debug, bare := stripped(t)
	want := loadFile(t, full)
	if b := loadFile(t, bare); b.Source != "dynsym" || b.Lines != nil {
		t.Fatalf("the stripped copy still has %s symbols and lines %v", b.Source, b.Lines != nil)
	}
	id := want.BuildID
	if len(id) != 40 {
		t.Fatalf("build-id %q", id)
	}
	cases := []struct {
		name, dbgPath string
		mangle        bool
		wantFound     bool
	}{
		{"debuglink beside", "/opt/app/prog.debug", false, true},
		{"debuglink in .debug", "/opt/app/.debug/prog.debug", false, true},
		{"debuglink under the debug dir", "/usr/lib/debug/opt/app/prog.debug", false, true},
		{"build-id", "/usr/lib/debug/.build-id/" + id[:2] + "/" + id[2:] + ".debug", false, true},
		{"debuglink with another CRC", "/opt/app/prog.debug", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			put(t, root, "opt/app/prog", bare)
			put(t, root, c.dbgPath, debug)
			if c.mangle {
				p := filepath.Join(root, c.dbgPath)
				data, _ := os.ReadFile(p)
				os.WriteFile(p, append(data, 0), 0o644)
			}
			r := NewResolver(os.DirFS(root))
			tab, err := r.Open("/opt/app/prog", id)
			if err != nil {
				t.Fatal(err)
			}
			if !c.wantFound {
				if tab.Source != "dynsym" || tab.Lines != nil {
					t.Fatalf("a debug file with the wrong CRC was used (%s)", tab.Source)
				}
				return
			}
			if tab.Source != c.dbgPath {
				t.Fatalf("symbols from %s, want %s", tab.Source, c.dbgPath)
			}
			sameSymbols(t, tab, want)
			if tab.BuildID != id || len(tab.Segments) == 0 {
				t.Errorf("build-id %s segments %d: want the binary's", tab.BuildID, len(tab.Segments))
			}
		})
	}
}

func TestArchiveStandsInForMissingOrChangedBinaries(t *testing.T) {
	full := compile(t, "cc", "prog.c", "prog", "-g", "-O1", "-fPIE", "-pie")
	other := compile(t, "cc", "prog.c", "prog2", "-O2", "-fPIE", "-pie")
	want := loadFile(t, full)
	want.Path = "/opt/app/prog"
	kern, err := ParseKallsyms([]byte(kallsymsSample))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteArchive(&buf, []*Table{want, kern}); err != nil {
		t.Fatal(err)
	}
	a, err := OpenArchive(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		fs   fstest.MapFS
	}{
		{"missing", fstest.MapFS{}},
		{"rebuilt", fstest.MapFS{"opt/app/prog": {Data: mustRead(t, other)}}},
	} {
		r := &Resolver{FS: c.fs, Archive: a}
		tab, err := r.Open("/opt/app/prog", want.BuildID)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tab.Source != "archive" {
			t.Fatalf("%s: symbols from %s", c.name, tab.Source)
		}
		sameSymbols(t, tab, want)
		for _, s := range want.Syms {
			f1, l1 := want.Lines.Lookup(s.Addr + 1)
			f2, l2 := tab.Lines.Lookup(s.Addr + 1)
			if f1 != f2 || l1 != l2 {
				t.Errorf("%s+1: %s:%d from the archive, %s:%d from the binary", s.Name, f2, l2, f1, l1)
			}
		}
		if k, err := r.Open(KernelName, ""); err != nil || k.Lookup(0xffffffff810a1b25).Name != "do_syscall_64" {
			t.Errorf("%s: kernel from the archive: %v", c.name, err)
		}
	}
	// Without an archive, a changed binary is refused rather than misread.
	r := &Resolver{FS: fstest.MapFS{"opt/app/prog": {Data: mustRead(t, other)}}}
	if _, err := r.Open("/opt/app/prog", want.BuildID); err == nil || !strings.Contains(err.Error(), "build-id") {
		t.Errorf("changed binary without archive: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

const kallsymsSample = `ffffffff81000000 T _text
ffffffff81000000 T startup_64
ffffffff810a1a80 t __do_sys_foo
ffffffff810a1b00 T do_syscall_64
ffffffff810a1c00 D some_data
ffffffff810a1d00 W weak_fn
ffffffffc0a01000 t e1000_clean	[e1000]
ffffffffc0a01200 T e1000_xmit	[e1000]
`

func TestKallsyms(t *testing.T) {
	k, err := ParseKallsyms([]byte(kallsymsSample))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr         uint64
		name, module string
	}{
		{0xffffffff81000010, "startup_64", ""}, // an alias of _text: fewer leading underscores wins
		{0xffffffff810a1b25, "do_syscall_64", ""},
		{0xffffffff810a1c10, "do_syscall_64", ""}, // data symbols are not functions
		{0xffffffff810a1d00, "weak_fn", ""},
		{0xffffffffc0a01004, "e1000_clean", "e1000"},
		{0xffffffffc0a01300, "e1000_xmit", "e1000"},
	} {
		s := k.Lookup(c.addr)
		if s == nil || s.Name != c.name || s.Module != c.module {
			t.Errorf("%#x: %+v, want %s [%s]", c.addr, s, c.name, c.module)
		}
	}
	if s := k.Lookup(0xffffffff80000000); s != nil {
		t.Errorf("below the kernel: %+v", s)
	}
	if _, err := ParseKallsyms([]byte("0000000000000000 T _text\n0000000000000000 T foo\n")); err != ErrRestricted {
		t.Errorf("all-zero kallsyms: %v", err)
	}
	if _, err := ParseKallsyms([]byte("zzz T foo\n")); err == nil {
		t.Error("garbage accepted")
	}
}

func TestPerfMap(t *testing.T) {
	fs := fstest.MapFS{"tmp/perf-4242.map": {Data: []byte("7f0000001000 40 LazyCompile:~foo bar.js:1\n0x7f0000001040 0x20 stub\n7f0000001000 30 *foo\n")}}
	r := NewResolver(fs)
	tab, err := r.Open("/tmp/perf-4242.map", "")
	if err != nil {
		t.Fatal(err)
	}
	if s := tab.Lookup(0x7f0000001010); s == nil || s.Name != "*foo" {
		t.Errorf("the later entry at a reused address should win: %+v", s)
	}
	if s := tab.Lookup(0x7f000000105f); s == nil || s.Name != "stub" {
		t.Errorf("stub: %+v", s)
	}
	if s := tab.Lookup(0x7f0000001060); s != nil {
		t.Errorf("past the last entry: %+v", s)
	}
	if a := tab.MapAddr(0x7f0000001010, 0x7f0000001000, 0); a != 0x7f0000001010 {
		t.Errorf("perf map addresses are absolute, got %#x", a)
	}
	if _, err := ParsePerfMap([]byte("hello\n")); err == nil {
		t.Error("garbage accepted")
	}
}

// countFS counts the opens of each file.
type countFS struct {
	fs.FS
	opens map[string]int
}

func (c *countFS) Open(name string) (fs.File, error) {
	c.opens[name]++
	return c.FS.Open(name)
}

// TestShared: Resolvers with one Shared read a binary once; the archive's tables and the
// kernel's are each Resolver's own.
func TestShared(t *testing.T) {
	full := compile(t, "cc", "prog.c", "prog", "-O1")
	root := t.TempDir()
	put(t, root, "opt/app/prog", full)
	cfs := &countFS{FS: os.DirFS(root), opens: map[string]int{}}
	sh := &Shared{}
	kernel := &Table{Kind: KindKernel}
	var tabs []*Table
	for i := 0; i < 3; i++ {
		r := &Resolver{FS: cfs, Shared: sh, KernelTable: func(string) (*Table, error) { return kernel, nil }}
		tab, err := r.Open("/opt/app/prog", "")
		if err != nil {
			t.Fatal(err)
		}
		tabs = append(tabs, tab)
		if k, _ := r.Open(KernelName, ""); k != kernel {
			t.Errorf("resolver %d: the kernel's table is not its own", i)
		}
	}
	if cfs.opens["opt/app/prog"] != 1 || tabs[0] != tabs[1] || tabs[1] != tabs[2] {
		t.Errorf("the binary was opened %d times for 3 resolvers", cfs.opens["opt/app/prog"])
	}
	// A table from an archive is not shared: another recording may have another archive.
	var buf bytes.Buffer
	if err := WriteArchive(&buf, []*Table{{Path: "/opt/gone", Kind: KindDyn, Syms: []Sym{{Addr: 0x1000, Size: 16, Name: "f"}}}}); err != nil {
		t.Fatal(err)
	}
	a, err := OpenArchive(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if tab, err := (&Resolver{FS: cfs, Shared: sh, Archive: a}).Open("/opt/gone", ""); err != nil || tab.Source != "archive" {
		t.Fatalf("from the archive: %v %v", tab, err)
	}
	if tab, err := (&Resolver{FS: cfs, Shared: sh}).Open("/opt/gone", ""); err == nil {
		t.Errorf("a recording without the archive got its table: %v", tab)
	}
}

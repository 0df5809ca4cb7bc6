package symbol

import (
	"bytes"
	"debug/elf"
	"os"
	"strings"
	"testing"
)

// TestCodeReader: a function's bytes are the file's (from its section), its line table is
// the one the whole DWARF gives, read from the binary or from its separate debug file; a
// binary rebuilt since the recording is refused, and the archive's kept code stands in.
func TestCodeReader(t *testing.T) {
	full, debug, bare := stripped(t)
	want := loadFile(t, full)
	id := want.BuildID
	var middle *Sym
	for i := range want.Syms {
		if want.Syms[i].Name == "middle" {
			middle = &want.Syms[i]
		}
	}
	if middle == nil {
		t.Fatal("no middle in the test program")
	}
	f, err := elf.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wantCode := make([]byte, middle.Size)
	if _, err := f.Section(".text").ReadAt(wantCode, int64(middle.Addr-f.Section(".text").Addr)); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	put(t, root, "opt/app/prog", bare)
	put(t, root, "usr/lib/debug/.build-id/"+id[:2]+"/"+id[2:]+".debug", debug)
	put(t, root, "opt/app/full", full)
	c := NewCodeReader(NewResolver(os.DirFS(root)))
	defer c.Close()
	for _, p := range []string{"/opt/app/prog", "/opt/app/full"} {
		o := Object{Path: p, BuildID: id}
		fc, err := c.Function(o, middle.Addr, middle.Size, "middle")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fc.Bytes, wantCode) || fc.Machine != f.Machine || fc.Archived != nil {
			t.Errorf("%s: code %x machine %v archived %v, want %x", p, fc.Bytes, fc.Machine, fc.Archived, wantCode)
		}
		l := c.Lines(o, middle.Addr)
		if l == nil {
			t.Fatalf("%s: no lines", p)
		}
		for a := middle.Addr; a < middle.End(); a++ {
			gf, gl := l.Lookup(a)
			wf, wl := want.Lines.Lookup(a)
			if gf != wf || gl != wl || !strings.HasSuffix(gf, "prog.c") {
				t.Fatalf("%s: %#x: %s:%d, whole table %s:%d", p, a, gf, gl, wf, wl)
			}
		}
	}
	// Rebuilt since: the build-id differs; without kept code the error says how to fix it.
	other := Object{Path: "/opt/app/prog", BuildID: strings.Repeat("ab", 20)}
	if _, err := c.Function(other, middle.Addr, middle.Size, "middle"); err == nil || !strings.Contains(err.Error(), "changed since the recording") || !strings.Contains(err.Error(), "--symfs") {
		t.Errorf("rebuilt binary: %v", err)
	}
	if l := c.Lines(other, middle.Addr); l != nil {
		t.Errorf("lines of a rebuilt binary: %v", l)
	}
	// With the archive's kept code and lines.
	kept := &Table{Machine: uint16(f.Machine), Code: []Code{{Addr: middle.Addr, Bytes: wantCode}}, Lines: want.Lines}
	other.Table = kept
	fc, err := c.Function(other, middle.Addr, middle.Size, "middle")
	if err != nil || !bytes.Equal(fc.Bytes, wantCode) || fc.Archived == nil {
		t.Errorf("from the archive: %v, %+v", err, fc)
	}
	if l := c.Lines(other, middle.Addr); l != want.Lines {
		t.Errorf("the archive's lines not used")
	}
	if _, err := c.Function(Object{Path: "[kernel.kallsyms]", Kernel: true}, 0xffffffff81000000, 16, "x"); err == nil {
		t.Error("code of a kernel function")
	}
}

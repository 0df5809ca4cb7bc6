package symbol

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"testing"
)

// TestDebugFileFrames (issue 27): code built without .eh_frame (-fno-asynchronous-unwind-tables)
// has its CFI in .debug_frame alone, which strip moves to the separate debug file; Frames of
// the stripped binary finds it there by debug-link and by build-id, the bytes the
// unstripped binary has.
func TestDebugFileFrames(t *testing.T) {
	need(t, "objcopy", "strip")
	full := compile(t, "cc", "prog.c", "prog", "-g", "-O1", "-fPIE", "-pie", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables")
	dir := filepath.Dir(full)
	debug, bare := filepath.Join(dir, "prog.debug"), filepath.Join(dir, "prog.stripped")
	sh(t, "objcopy", "--only-keep-debug", full, debug)
	sh(t, "strip", "--strip-all", "-o", bare, full)
	sh(t, "objcopy", "--add-gnu-debuglink="+debug, bare)
	ef, err := elf.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(".debug_frame")
	if s == nil {
		ef.Close()
		t.Fatal("cc -g -fno-asynchronous-unwind-tables wrote no .debug_frame")
	}
	want, err := s.Data()
	ef.Close()
	if err != nil || len(want) == 0 {
		t.Fatalf(".debug_frame: %d bytes, %v", len(want), err)
	}
	id := loadFile(t, full).BuildID
	for _, dbgPath := range []string{"/opt/app/prog.debug", "/usr/lib/debug/.build-id/" + id[:2] + "/" + id[2:] + ".debug", ""} {
		root := t.TempDir()
		put(t, root, "opt/app/prog", bare)
		if dbgPath != "" {
			put(t, root, dbgPath, debug)
		}
		r := NewResolver(os.DirFS(root))
		tab, err := r.Open("/opt/app/prog", id)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := r.Frames(tab)
		if dbgPath == "" {
			if err == nil && len(fs.DebugFrame.Data) != 0 {
				t.Errorf("no debug file, yet %d bytes of .debug_frame", len(fs.DebugFrame.Data))
			}
			continue
		}
		if err != nil {
			t.Fatalf("debug file at %s: %v", dbgPath, err)
		}
		if !bytes.Equal(fs.DebugFrame.Data, want) {
			t.Errorf("debug file at %s: .debug_frame of %d bytes, the unstripped binary's has %d", dbgPath, len(fs.DebugFrame.Data), len(want))
		}
	}
}

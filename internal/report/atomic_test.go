package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old contents that are longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new\n" {
		t.Fatalf("read back %q, %v", got, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestWriteFileAtomicRelative(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := WriteFileAtomic("plain.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("plain.txt"); err != nil || string(b) != "x" {
		t.Fatalf("%q %v", b, err)
	}
}

// TestWriteFileAtomicFailure: a failed write names the file, leaves nothing behind and
// keeps the old file.
func TestWriteFileAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	err := WriteFileAtomic(filepath.Join(dir, "missing", "out.json"), []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "out.json") {
		t.Errorf("err = %v", err)
	}
	// Renaming over a directory fails after the temporary file was written.
	target := filepath.Join(dir, "adir")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("x"), 0o644); err == nil {
		t.Error("writing over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}

func TestAppendFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.txt")
	for _, s := range []string{"first\n", "second\n"} {
		if err := AppendFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "first\nsecond\n" {
		t.Errorf("got %q", b)
	}
	if err := AppendFile(filepath.Join(path, "sub"), []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "append to") {
		t.Errorf("append under a file: %v", err)
	}
}

func TestStartedLine(t *testing.T) {
	// perf stat -o FILE writes "# started on Sat Nov 21 05:59:17 2026" and a blank line.
	got := StartedLine(time.Date(2026, 11, 21, 5, 59, 17, 0, time.UTC))
	if got != "# started on Sat Nov 21 05:59:17 2026\n\n" {
		t.Errorf("%q", got)
	}
	if got := StartedLine(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)); got != "# started on Tue Dec  1 09:00:00 2026\n\n" {
		t.Errorf("day padding: %q", got)
	}
}

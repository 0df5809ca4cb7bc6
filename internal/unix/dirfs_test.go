package unix

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// DirFS reads what os.DirFS reads: empty, small, page-sized and large files, sysfs and procfs
// files (whose size stat reports as 4096 or 0), with the same errors for missing paths,
// directories and invalid names; and it passes fstest.
func TestDirFS(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{"empty": nil, "small": []byte("x\n"), "page": bytes.Repeat([]byte("p"), 4096),
		"large": bytes.Repeat([]byte("0123456789"), 100_000), "sub/nested": []byte("n")}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := DirFS(dir)
	for name, data := range files {
		got, err := fs.ReadFile(fsys, name)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", name, len(got), err, len(data))
		}
	}
	if _, err := fs.ReadFile(fsys, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := fs.ReadFile(fsys, "sub"); err == nil {
		t.Error("reading a directory: no error")
	}
	if _, err := fs.ReadFile(fsys, "../etc/passwd"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("invalid path: %v, want fs.ErrInvalid", err)
	}
	if err := fstest.TestFS(fsys, "small", "sub/nested", "large"); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"proc/self/status", "proc/cpuinfo", "sys/devices/system/cpu/online"} {
		want, err := os.ReadFile("/" + name)
		if err != nil {
			continue
		}
		got, err := fs.ReadFile(DirFS("/"), name)
		if err != nil || len(got) == 0 || (name != "proc/self/status" && !bytes.Equal(got, want)) {
			t.Errorf("/%s: %d bytes, %v; os.ReadFile %d bytes", name, len(got), err, len(want))
		}
	}
}

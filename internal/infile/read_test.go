package infile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, nil, 5, "x"); err != nil || string(b) != "12345" {
		t.Errorf("Read at the limit = %q, %v; want 12345", b, err)
	}
	if b, err := Read("-", strings.NewReader("abc"), 5, "x"); err != nil || string(b) != "abc" {
		t.Errorf("Read(-) = %q, %v; want abc", b, err)
	}
	for _, c := range []struct {
		path  string
		limit int64
		want  string
	}{
		{"", 5, "x: the file name is empty"},
		{dir, 5, "x: " + dir + " is a directory: name a file"},
		{small, 4, "x: " + small + " is larger than 0 MiB, the most pmc reads of it"},
		{"/dev/zero", 2 << 20, "x: /dev/zero is larger than 2 MiB, the most pmc reads of it"},
		{filepath.Join(dir, "none"), 5, "x: open " + filepath.Join(dir, "none") + ": no such file or directory"},
	} {
		if _, err := Read(c.path, nil, c.limit, "x"); err == nil || err.Error() != c.want {
			t.Errorf("Read(%q, %d) = %v; want %s", c.path, c.limit, err, c.want)
		}
	}
}

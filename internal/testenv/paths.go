package testenv

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/unix"
)

// PathKind is one kind of path a recording (outfile.Rotate, pmc record -o) may be given.
type PathKind struct {
	Name string
	// Make creates it in dir and returns the path and the other paths whose state must not
	// change (a symlink's target, another hard link); Make skips where it cannot (mknod
	// needs root).
	Make func(t testing.TB, dir string) (path string, others []string)
	// Rotated: a finished recording moves the path itself to path.old.
	Rotated bool
	// Refused: the path is refused before anything is written, with a message holding this.
	Refused string
}

// PathKinds are every kind of output path: new, a regular file owned by another user (as
// root), empty, empty with another hard link, a symlink, a dangling symlink, a device node,
// a FIFO, a path with an older path.old, and a path.old that must not be replaced.
var PathKinds = []PathKind{
	{Name: "new", Make: func(t testing.TB, dir string) (string, []string) { return filepath.Join(dir, "perf.data"), nil }},
	{Name: "regular", Rotated: true, Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "previous recording", 0o640)
		if os.Geteuid() == 0 {
			os.Chown(p, 65534, 65534)
		}
		return p, nil
	}},
	{Name: "empty", Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "", 0o600)
		return p, nil
	}},
	{Name: "empty-hardlinked", Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "", 0o600)
		if err := os.Link(p, filepath.Join(dir, "other")); err != nil {
			t.Skip("no hard links here:", err)
		}
		return p, []string{filepath.Join(dir, "other")}
	}},
	{Name: "symlink", Rotated: true, Make: func(t testing.TB, dir string) (string, []string) {
		tgt := filepath.Join(dir, "tgt")
		writeFile(t, tgt, "x\n", 0o644)
		p := filepath.Join(dir, "lnk")
		symlink(t, "tgt", p)
		return p, []string{tgt}
	}},
	{Name: "dangling-symlink", Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "lnk")
		symlink(t, "created", p)
		return p, []string{filepath.Join(dir, "created")}
	}},
	{Name: "chardev", Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "mynull")
		MknodNull(t, p)
		return p, nil
	}},
	{Name: "fifo", Refused: "is a FIFO", Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "fifo")
		if err := unix.Mkfifo(p, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		return p, nil
	}},
	{Name: "with-old", Rotated: true, Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "previous", 0o644)
		writeFile(t, p+".old", "older", 0o600)
		return p, nil
	}},
	{Name: "old-is-directory", Refused: "is a directory", Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "previous", 0o644)
		if err := os.Mkdir(p+".old", 0o755); err != nil {
			t.Fatal(err)
		}
		return p, nil
	}},
	{Name: "old-is-fifo", Refused: "is a FIFO", Make: func(t testing.TB, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		writeFile(t, p, "previous", 0o644)
		if err := unix.Mkfifo(p+".old", 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		return p, nil
	}},
}

// MknodNull makes a null character device (1:3) at path; it skips without root. A test that
// writes to its own device node cannot damage the machine's /dev/null.
func MknodNull(t testing.TB, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a device node (mknod)")
	}
	if out, err := exec.Command("mknod", "-m", "666", path, "c", "1", "3").CombinedOutput(); err != nil {
		t.Fatalf("mknod: %v %s", err, out)
	}
}

func writeFile(t testing.TB, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// PathState is what a user could notice of a path: kind, mode, owner, link, content (its
// first 64 bytes), or "absent".
func PathState(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	uid, gid, _, _ := unix.FileOwner(fi)
	s := fmt.Sprintf("%v %d:%d", fi.Mode(), uid, gid)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		l, _ := os.Readlink(path)
		s += " -> " + l
	case fi.Mode().IsRegular():
		b, _ := os.ReadFile(path)
		if len(b) > 64 {
			b = b[:64]
		}
		s += fmt.Sprintf(" %q", b)
	}
	return s
}

// PathStates is PathState of each path, labelled by its base name.
func PathStates(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "[%s: %s] ", filepath.Base(p), PathState(p))
	}
	return b.String()
}

// NoTempFiles fails the test when a temporary output file (".NAME.tmp-*") is left in dir.
func NoTempFiles(t testing.TB, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

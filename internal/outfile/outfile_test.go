package outfile

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
)

func write(t *testing.T, path string, mode Mode, data string) {
	t.Helper()
	f, err := Create(path, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps checks that no temporary file was left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestNewAndExistingRegularFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	write(t, p, Replace, "one\n")
	st, _ := os.Stat(p)
	if got := content(t, p); got != "one\n" || st.Mode().Perm() != DefaultPerm&^umask() {
		t.Fatalf("new file: %q mode %v", got, st.Mode())
	}
	// An existing file keeps its mode (here 0600, a private result) through the replace.
	os.Chmod(p, 0o600)
	write(t, p, Replace, "two\n")
	st, _ = os.Stat(p)
	if got := content(t, p); got != "two\n" || st.Mode().Perm() != 0o600 {
		t.Fatalf("replaced file: %q mode %v, want mode 0600 kept", got, st.Mode())
	}
	noTemps(t, dir)
}

func umask() fs.FileMode {
	m := unix.Umask(0)
	unix.Umask(m)
	return fs.FileMode(m)
}

// TestOwnerKept: run as root (CI is), a file owned by another user stays theirs.
func TestOwnerKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "theirs.txt")
	os.WriteFile(p, []byte("old"), 0o640)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	write(t, p, Replace, "new")
	st, _ := os.Stat(p)
	uid, gid, _, _ := unix.FileOwner(st)
	if content(t, p) != "new" || uid != 65534 || gid != 65534 || st.Mode().Perm() != 0o640 {
		t.Fatalf("owner %d:%d mode %v, want 65534:65534 0640", uid, gid, st.Mode())
	}
}

func TestHardLinkKept(t *testing.T) {
	dir := t.TempDir()
	p, q := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := os.Link(p, q); err != nil {
		t.Fatal(err)
	}
	write(t, p, Replace, "new")
	if content(t, q) != "new" {
		t.Fatalf("the other hard link reads %q: the link was split", content(t, q))
	}
}

// TestSymlinkWrittenThrough: the link stays a link, its target gets the content.
func TestSymlinkWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	write(t, link, Replace, "new")
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi.Mode(), err)
	}
	st, _ := os.Stat(target)
	if content(t, target) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("target %q mode %v", content(t, target), st.Mode())
	}
	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("sub/../created.txt", dangling)
	write(t, dangling, Replace, "x")
	if content(t, filepath.Join(dir, "created.txt")) != "x" {
		t.Fatal("dangling link: target not created")
	}
	if fi, _ := os.Lstat(dangling); fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("dangling link replaced")
	}
	noTemps(t, dir)
}

// TestDeviceNotReplaced: a null device stays the character device (as root the old
// rename-based writer turned `pmc stat -o /dev/null` into a regular file), and /dev/full
// reports the full disk. As root the test makes its own null device node (1:3), so a
// regression cannot damage the machine's /dev/null.
func TestDeviceNotReplaced(t *testing.T) {
	null := "/dev/null"
	if os.Geteuid() == 0 {
		null = filepath.Join(t.TempDir(), "null")
		if out, err := exec.Command("mknod", "-m", "666", null, "c", "1", "3").CombinedOutput(); err != nil {
			t.Fatalf("mknod: %v %s", err, out)
		}
	}
	write(t, null, Replace, "discarded\n")
	fi, err := os.Lstat(null)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", null, fi.Mode(), err)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	f, err := Create("/dev/full", Replace)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := f.Write([]byte("x"))
	cerr := f.Close()
	if werr == nil && cerr == nil {
		t.Fatal("writing /dev/full reported no error")
	}
	if fi, _ := os.Lstat("/dev/full"); fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatal("/dev/full replaced")
	}
}

// TestFIFO: a named pipe is written, its reader gets the data, and it stays a pipe.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pipe")
	if err := exec.Command("mkfifo", p).Run(); err != nil {
		t.Skip("mkfifo:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(p) // opens for reading: unblocks the writer's open
		got <- string(b)
	}()
	write(t, p, Replace, "through the pipe\n")
	if s := <-got; s != "through the pipe\n" {
		t.Fatalf("reader got %q", s)
	}
	if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	noTemps(t, dir)
}

func TestAppendAndStream(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	write(t, p, Append, "a\n")
	write(t, p, Append, "b\n")
	if got := content(t, p); got != "a\nb\n" {
		t.Fatalf("append: %q", got)
	}
	f, err := Create(p, Stream)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "row 1\n")
	f.Sync()
	if got := content(t, p); got != "row 1\n" { // a reader sees it before the end
		t.Fatalf("stream after the first row: %q", got)
	}
	io.WriteString(f, "row 2\n")
	f.Close()
	if got := content(t, p); got != "row 1\nrow 2\n" {
		t.Fatalf("stream: %q", got)
	}
}

// TestErrorsBeforeWriting: what cannot be written fails at Create, with a one-line message.
func TestErrorsBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{"", "empty"},
		{filepath.Join(dir, "missing", "out.txt"), "no such file or directory"},
		{dir, "is a directory"},
		{filepath.Join(dir, "file", "x"), "not a directory"},
	} {
		os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
		_, err := Create(c.path, Replace)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Create(%q): %v, want one line with %q", c.path, err, c.want)
		}
	}
}

func TestAbortLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keep")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := Create(p, Replace)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "half")
	f.Abort()
	f.Abort()
	if content(t, p) != "old" {
		t.Fatal("Abort changed the file")
	}
	noTemps(t, dir)
}

// TestFDs: every way of finishing an output releases its fd.
func TestFDs(t *testing.T) {
	testenv.CheckFDs(t)
	dir := t.TempDir()
	for _, mode := range []Mode{Replace, Append, Stream} {
		f, err := Create(filepath.Join(dir, "x"), mode)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		f, _ = Create(filepath.Join(dir, "x"), mode)
		f.Abort()
	}
	Create(filepath.Join(dir, "missing", "x"), Replace)
	WriteFile("/dev/null", []byte("x"))
}

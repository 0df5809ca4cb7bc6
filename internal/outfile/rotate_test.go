package outfile

import (
	"fmt"
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

// state is everything a user could notice of a path: kind, mode, owner, inode, link
// target and content.
func state(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	uid, gid, _, _ := unix.FileOwner(fi)
	s := fmt.Sprintf("%v uid=%d gid=%d", fi.Mode(), uid, gid)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		l, _ := os.Readlink(path)
		s += " -> " + l
	case fi.Mode().IsRegular():
		b, _ := os.ReadFile(path)
		s += fmt.Sprintf(" %q", b)
	}
	return s
}

// pathKind makes one kind of output path in dir and returns the path and the other paths
// whose state must be checked (a symlink's target).
type pathKind struct {
	name string
	make func(t *testing.T, dir string) (path string, others []string)
	// refused: Create must fail (and change nothing).
	refused string
	// rotated: Close moves the path to path.old.
	rotated bool
}

func mknodNull(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a device node (mknod)")
	}
	if out, err := exec.Command("mknod", "-m", "666", path, "c", "1", "3").CombinedOutput(); err != nil {
		t.Fatalf("mknod: %v %s", err, out)
	}
}

// PathKinds are the kinds of output path a recording is written to.
var pathKinds = []pathKind{
	{name: "new", make: func(t *testing.T, dir string) (string, []string) { return filepath.Join(dir, "perf.data"), nil }},
	{name: "regular", rotated: true, make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		os.WriteFile(p, []byte("previous recording"), 0o640)
		if os.Geteuid() == 0 {
			os.Chown(p, 65534, 65534)
		}
		return p, nil
	}},
	{name: "empty", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		os.WriteFile(p, nil, 0o600)
		return p, nil
	}},
	{name: "empty-hardlinked", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		os.WriteFile(p, nil, 0o600)
		os.Link(p, filepath.Join(dir, "other"))
		return p, []string{filepath.Join(dir, "other")}
	}},
	{name: "symlink", rotated: true, make: func(t *testing.T, dir string) (string, []string) {
		tgt := filepath.Join(dir, "tgt")
		os.WriteFile(tgt, []byte("x\n"), 0o644)
		p := filepath.Join(dir, "lnk")
		os.Symlink("tgt", p)
		return p, []string{tgt}
	}},
	{name: "dangling-symlink", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "lnk")
		os.Symlink("created", p)
		return p, []string{filepath.Join(dir, "created")}
	}},
	{name: "chardev", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "mynull")
		mknodNull(t, p)
		return p, nil
	}},
	{name: "fifo", refused: "is a FIFO", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "pipe")
		if err := unix.Mkfifo(p, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		return p, nil
	}},
	{name: "regular-with-old", rotated: true, make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		os.WriteFile(p, []byte("previous"), 0o644)
		os.WriteFile(p+".old", []byte("older"), 0o644)
		return p, nil
	}},
	{name: "old-is-directory", refused: "is a directory", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		os.WriteFile(p, []byte("previous"), 0o644)
		os.Mkdir(p+".old", 0o755)
		return p, nil
	}},
	{name: "old-is-fifo", refused: "is a FIFO", make: func(t *testing.T, dir string) (string, []string) {
		p := filepath.Join(dir, "perf.data")
		os.WriteFile(p, []byte("previous"), 0o644)
		if err := unix.Mkfifo(p+".old", 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		return p, nil
	}},
}

// TestRotateAbortChangesNothing: whatever the path is, an aborted recording leaves it, its
// target and path.old exactly as they were, and no temporary file.
func TestRotateAbortChangesNothing(t *testing.T) {
	testenv.CheckFDs(t)
	for _, k := range pathKinds {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			p, others := k.make(t, dir)
			watch := append([]string{p, p + OldSuffix}, others...)
			before := states(t, watch)
			fiBefore, _ := os.Lstat(p)
			f, err := Create(p, Rotate)
			if k.refused != "" {
				if err == nil || !strings.Contains(err.Error(), k.refused) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("Create: %v, want one line with %q", err, k.refused)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				io.WriteString(f, "half a recording")
				f.Seek(0, io.SeekStart)
				f.Abort()
				f.Abort()
			}
			if after := states(t, watch); after != before {
				t.Errorf("abort changed things:\nbefore %s\nafter  %s", before, after)
			}
			if fiAfter, _ := os.Lstat(p); (fiBefore == nil) != (fiAfter == nil) || fiBefore != nil && !os.SameFile(fiBefore, fiAfter) {
				t.Errorf("abort replaced %s by another file", p)
			}
			noTemps(t, dir)
		})
	}
}

// TestRotateClose: a finished recording is at the path; the previous non-empty one (the
// symlink itself, as perf moves it) at path.old, unchanged; a symlink's target is never
// written unless the link was dangling or its target empty, and then the link stays.
func TestRotateClose(t *testing.T) {
	testenv.CheckFDs(t)
	for _, k := range pathKinds {
		if k.refused != "" {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			p, others := k.make(t, dir)
			before := state(t, p)
			othersBefore := states(t, others)
			f, err := Create(p, Rotate)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(f, "XXXX new recording")
			f.Seek(0, io.SeekStart)
			io.WriteString(f, "the ") // a recording rewrites its header at the end
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			noTemps(t, dir)
			fi, _ := os.Lstat(p)
			switch {
			case k.name == "chardev":
				if fi.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("the device became %v", fi.Mode())
				}
			case k.name == "dangling-symlink":
				if fi.Mode()&fs.ModeSymlink == 0 || content(t, others[0]) != "the  new recording" {
					t.Fatalf("dangling link: %s, target %s", state(t, p), state(t, others[0]))
				}
			case !fi.Mode().IsRegular() || content(t, p) != "the  new recording":
				t.Fatalf("the recording: %s", state(t, p))
			}
			old := state(t, p+OldSuffix)
			switch {
			case k.rotated && old != before:
				t.Errorf("path.old is %s, want the previous %s", old, before)
			case !k.rotated && old != "absent":
				t.Errorf("path.old %s appeared for a %s path", old, k.name)
			}
			if k.name == "empty" || k.name == "empty-hardlinked" {
				if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want the file's 0600 kept", st.Mode())
				}
			}
			if k.name == "empty-hardlinked" {
				if content(t, others[0]) != "the  new recording" {
					t.Error("the hard link was split")
				}
			} else if k.name != "dangling-symlink" {
				if after := states(t, others); after != othersBefore {
					t.Errorf("a symlink's target changed:\nbefore %s\nafter  %s", othersBefore, after)
				}
			}
		})
	}
}

func states(t *testing.T, paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "[%s: %s] ", filepath.Base(p), state(t, p))
	}
	return b.String()
}

package outfile

import (
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestRotateAbortChangesNothing: whatever the path is, an aborted recording leaves it, its
// target and path.old exactly as they were (the same file, not a copy), and no temporary
// file; a path that cannot take a recording is refused at Create, also changing nothing.
func TestRotateAbortChangesNothing(t *testing.T) {
	testenv.CheckFDs(t)
	for _, k := range testenv.PathKinds {
		t.Run(k.Name, func(t *testing.T) {
			dir := t.TempDir()
			p, others := k.Make(t, dir)
			watch := append([]string{p, p + OldSuffix}, others...)
			before := testenv.PathStates(watch)
			fiBefore, _ := os.Lstat(p)
			f, err := Create(p, Rotate)
			if k.Refused != "" {
				if err == nil || !strings.Contains(err.Error(), k.Refused) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("Create: %v, want one line with %q", err, k.Refused)
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
			if after := testenv.PathStates(watch); after != before {
				t.Errorf("abort changed things:\nbefore %s\nafter  %s", before, after)
			}
			if fiAfter, _ := os.Lstat(p); (fiBefore == nil) != (fiAfter == nil) || fiBefore != nil && !os.SameFile(fiBefore, fiAfter) {
				t.Errorf("abort replaced %s by another file", p)
			}
			testenv.NoTempFiles(t, dir)
		})
	}
}

// TestRotateClose: a finished recording is at the path; the previous non-empty one (the
// symlink itself, as perf moves it) at path.old, unchanged; a symlink's target is never
// written unless the link was dangling, and then the link stays; an empty file keeps its
// mode and its other hard links; a device stays the device.
func TestRotateClose(t *testing.T) {
	testenv.CheckFDs(t)
	const recording = "the  new recording"
	for _, k := range testenv.PathKinds {
		if k.Refused != "" {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			dir := t.TempDir()
			p, others := k.Make(t, dir)
			before, othersBefore := testenv.PathState(p), testenv.PathStates(others)
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
			testenv.NoTempFiles(t, dir)
			fi, _ := os.Lstat(p)
			switch {
			case k.Name == "chardev":
				if fi.Mode()&fs.ModeCharDevice == 0 {
					t.Fatalf("the device became %v", fi.Mode())
				}
			case k.Name == "dangling-symlink":
				if fi.Mode()&fs.ModeSymlink == 0 || content(t, others[0]) != recording {
					t.Fatalf("dangling link: %s, target %s", testenv.PathState(p), testenv.PathState(others[0]))
				}
			case !fi.Mode().IsRegular() || content(t, p) != recording:
				t.Fatalf("the recording: %s", testenv.PathState(p))
			}
			old := testenv.PathState(p + OldSuffix)
			switch {
			case k.Rotated && old != before:
				t.Errorf("path.old is %s, want the previous %s", old, before)
			case !k.Rotated && old != "absent":
				t.Errorf("path.old %s appeared for a %s path", old, k.Name)
			}
			switch k.Name {
			case "empty", "empty-hardlinked":
				if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want the file's 0600 kept", st.Mode())
				}
				if k.Name == "empty-hardlinked" && content(t, others[0]) != recording {
					t.Error("the hard link was split")
				}
			case "dangling-symlink":
			default:
				if after := testenv.PathStates(others); after != othersBefore {
					t.Errorf("a symlink's target changed:\nbefore %s\nafter  %s", othersBefore, after)
				}
			}
		})
	}
}

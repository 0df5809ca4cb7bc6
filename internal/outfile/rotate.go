package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OldSuffix is what Rotate appends to the name of the recording it keeps.
const OldSuffix = ".old"

// createRotate opens path for a recording (Rotate). Nothing at path or at path.old is
// changed here: the data goes to a temporary file, and only Close moves things.
func createRotate(path string) (*File, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return createRotateTemp(path)
	case err != nil:
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	// As perf: what the path names (a symlink followed) decides; a non-empty recording is
	// kept as path.old, and when path is a symlink it is the link that moves, not its target.
	st, serr := os.Stat(path)
	switch {
	case serr != nil && fi.Mode()&fs.ModeSymlink != 0:
		return createRotateTemp(path) // a dangling link: its target is created through it
	case serr != nil:
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(serr))
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory: name a file in it", path)
	case st.Mode()&(fs.ModeNamedPipe|fs.ModeSocket) != 0:
		return nil, fmt.Errorf("%s is a %s: a recording is rewritten at its end and needs a regular file (or a device such as /dev/null); name a file",
			path, kindOf(st.Mode()))
	case !st.Mode().IsRegular():
		// A device (/dev/null): written as it is, never moved or replaced.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		return &File{path: path, target: path, f: f}, nil
	case st.Size() == 0:
		return createRotateTemp(path) // an empty file: replaced like any output, mode and owner kept
	}
	if err := checkOld(path + OldSuffix); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return &File{path: path, target: path, f: f, tmp: true, rotate: true}, nil
}

// createRotateTemp opens a temporary file renamed over path's target (the end of a symlink
// chain) at Close, keeping an existing target's mode and owner, as Replace does; an empty
// file its user may not write is refused, as perf's open refuses it.
func createRotateTemp(path string) (*File, error) {
	target, fi, err := resolve(path)
	if err != nil {
		return nil, err
	}
	out := &File{path: path, target: target}
	if fi != nil && fi.Mode().IsRegular() && inPlace(fi) {
		// Hard links or an owner pmc cannot give the file back to: written where it is
		// (it is empty, so Abort can put it back as it was).
		if out.f, err = os.OpenFile(target, os.O_WRONLY, 0); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		out.emptied = true
		return out, nil
	}
	if err := writable(target, fi); err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := out.createTemp(fi); err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return out, nil
}

// checkOld refuses, before anything is recorded, a path.old that Close could not replace
// or must not: a directory, a device, a FIFO, a socket.
func checkOld(old string) error {
	fi, err := os.Lstat(old)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot keep the previous recording as %s: %w", old, unwrapPath(err))
	case fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0:
		return nil
	}
	return fmt.Errorf("cannot keep the previous recording as %s: it is a %s, which pmc does not replace; remove it or name another output",
		old, kindOf(fi.Mode()))
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// finishRotate moves the previous recording to path.old and the new one to path. Should
// the second rename fail, the previous recording goes back to path.
func (o *File) finishRotate() error {
	if err := o.seal(); err != nil {
		return err
	}
	old := o.path + OldSuffix
	moved := true
	if err := os.Rename(o.path, old); errors.Is(err, fs.ErrNotExist) {
		moved = false // removed meanwhile: nothing to keep
	} else if err != nil {
		return fmt.Errorf("keeping the previous recording as %s: %w", old, unwrapPath(err))
	}
	if err := os.Rename(o.f.Name(), o.path); err != nil {
		if moved {
			os.Rename(old, o.path)
		}
		return err
	}
	syncDir(filepath.Dir(o.path))
	return nil
}

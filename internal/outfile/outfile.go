package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Mode says how the content reaches the path.
type Mode int

const (
	// Replace writes a whole document: the path holds the old content or the new one,
	// never a part (for a regular file; devices and FIFOs are written as the data comes).
	Replace Mode = iota
	// Append adds to the end of the path (created when missing).
	Append
	// Stream truncates the path and writes through as the data comes.
	Stream
	// Rotate writes a recording and keeps the previous one, as perf record -o does: the
	// data goes to a new seekable file beside the path; Close moves an existing non-empty
	// path (a symlink itself, not its target) to PATH.old, replacing an older one, and the
	// new file to PATH. Abort removes the new file and changes nothing else. A device
	// (/dev/null) is written in place; a FIFO or socket is refused (a recording is rewritten
	// at its end).
	Rotate
)

// DefaultPerm is the mode of a file pmc creates (before the umask): results are for reading.
const DefaultPerm fs.FileMode = 0o644

// File is an output being written. Close finishes it; Abort drops what was written to a
// temporary file. Both are safe to call more than once, and Abort after Close does nothing.
type File struct {
	path   string   // what the user named
	target string   // the file really written (the end of a symlink chain)
	f      *os.File // the temporary file (atomic replace) or the target itself
	tmp    bool     // f is a temporary file to rename over target at Close
	keep   *fs.FileInfo
	done   bool
	rotate bool // Rotate: Close moves an existing path to path.old first
	// emptied: an empty file written in place (hard links, another owner); Abort empties it
	// again.
	emptied bool
}

// Create opens path for writing in mode. The error names the path and what to change.
func Create(path string, mode Mode) (*File, error) {
	if path == "" {
		return nil, errors.New("the output file name is empty: name a file")
	}
	if mode == Rotate {
		return createRotate(path)
	}
	target, fi, err := resolve(path)
	if err != nil {
		return nil, err
	}
	out := &File{path: path, target: target}
	switch {
	case fi != nil && fi.IsDir():
		return nil, fmt.Errorf("%s is a directory: name a file in it", path)
	case fi != nil && !fi.Mode().IsRegular():
		// A device, FIFO or socket: write to it as it is. O_TRUNC means nothing to them.
		out.f, err = os.OpenFile(target, os.O_WRONLY, 0)
	case mode == Append:
		out.f, err = os.OpenFile(target, os.O_WRONLY|os.O_APPEND|os.O_CREATE, DefaultPerm)
	case mode == Stream || fi != nil && inPlace(fi):
		out.f, err = os.OpenFile(target, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, DefaultPerm)
	default:
		if err = writable(target, fi); err == nil {
			err = out.createTemp(fi)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return out, nil
}

// resolve follows symlinks from path to the file to write and stats it (nil info: it does not
// exist yet, and its directory does). A dangling link names the file to create.
func resolve(path string) (string, os.FileInfo, error) {
	target := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			dir := filepath.Dir(target)
			st, derr := os.Stat(dir)
			if derr != nil {
				return "", nil, fmt.Errorf("cannot write %s: directory %s: %w", path, dir, unwrapPath(derr))
			}
			if !st.IsDir() {
				return "", nil, fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
			}
			return target, nil, nil
		case err != nil:
			return "", nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		case fi.Mode()&fs.ModeSymlink == 0:
			return target, fi, nil
		case hops >= 40:
			return "", nil, fmt.Errorf("cannot write %s: too many levels of symbolic links", path)
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
}

// createTemp opens the temporary file that Close renames over the target.
func (o *File) createTemp(existing os.FileInfo) error {
	dir, base := filepath.Split(o.target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	o.f, o.tmp = f, true
	if existing != nil {
		o.keep = &existing
	}
	return nil
}

// Write writes p to the output.
func (o *File) Write(p []byte) (int, error) {
	if o.done {
		return 0, fmt.Errorf("writing %s: %w", o.path, os.ErrClosed)
	}
	n, err := o.f.Write(p)
	if err != nil {
		return n, fmt.Errorf("writing %s: %w", o.path, unwrapPath(err))
	}
	return n, nil
}

// Sync flushes what was written so far to the file (streams: a reader sees it at once).
func (o *File) Sync() error {
	if o.done || !o.regular() {
		return nil
	}
	return o.f.Sync()
}

// Name is the path as the user gave it.
func (o *File) Name() string { return o.path }

// Close finishes the output: a temporary file gets the old file's mode and owner, is synced
// and renamed over the target; a file written in place is synced and closed.
func (o *File) Close() error {
	if o.done {
		return nil
	}
	o.done = true
	if !o.tmp {
		var serr error
		if o.regular() {
			serr = o.f.Sync()
		}
		if err := o.f.Close(); err != nil && serr == nil {
			serr = err
		}
		if serr != nil {
			return fmt.Errorf("writing %s: %w", o.path, unwrapPath(serr))
		}
		return nil
	}
	var err error
	if o.rotate {
		err = o.finishRotate()
	} else {
		err = o.finishTemp()
	}
	if err != nil {
		os.Remove(o.f.Name())
		return fmt.Errorf("writing %s: %w", o.path, unwrapPath(err))
	}
	return nil
}

func (o *File) finishTemp() error {
	if err := o.seal(); err != nil {
		return err
	}
	if err := os.Rename(o.f.Name(), o.target); err != nil {
		return err
	}
	syncDir(filepath.Dir(o.target))
	return nil
}

// seal gives the temporary file its mode (the old file's, or DefaultPerm) and owner, syncs
// and closes it.
func (o *File) seal() error {
	perm := DefaultPerm
	if o.keep != nil {
		perm = (*o.keep).Mode().Perm()
	}
	if err := o.f.Chmod(perm); err != nil {
		o.f.Close()
		return err
	}
	if o.keep != nil {
		if uid, gid, ok := owner(*o.keep); ok {
			// As root this gives the file back to its owner; otherwise the file was ours (inPlace
			// rewrites files we could not give back), so there is nothing to change.
			o.f.Chown(uid, gid)
		}
	}
	if err := o.f.Sync(); err != nil {
		o.f.Close()
		return err
	}
	return o.f.Close()
}

// syncDir makes a rename durable. A file system that cannot sync a directory still has the
// whole file, so that is not an error.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Abort gives up: a temporary file is removed and the target left as it was; a file written
// in place (a device, a stream, an append) is closed with what it has, except an empty file
// a recording was written into, which is emptied again.
func (o *File) Abort() {
	if o.done {
		return
	}
	o.done = true
	if o.emptied {
		o.f.Truncate(0)
	}
	o.f.Close()
	if o.tmp {
		os.Remove(o.f.Name())
	}
}

func (o *File) regular() bool {
	fi, err := o.f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// WriteFile writes data to path as one document (Replace).
func WriteFile(path string, data []byte) error {
	f, err := Create(path, Replace)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Close()
}

// unwrapPath drops the *PathError wrapper, whose text repeats the path the caller names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Seek moves the write position (a regular file or its temporary; a FIFO or a device
// refuses), for formats whose header is rewritten at the end (perf.data).
func (o *File) Seek(offset int64, whence int) (int64, error) { return o.f.Seek(offset, whence) }

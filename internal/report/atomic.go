package report

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// WriteFileAtomic replaces path with data so that a reader sees either the old file or the
// whole new one, never a part: it writes a temporary file in the same directory, syncs it
// to disk, renames it over path and syncs the directory. perm applies to the new file.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("report: write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	// The rename is durable once the directory entry is on disk. Some file systems cannot
	// sync a directory; the file itself is complete either way, so that is not an error.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// AppendFile adds data at the end of path, creating it with perm when missing, and syncs
// it: pmc stat -o FILE --append.
func AppendFile(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return fmt.Errorf("report: append to %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("report: append to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("report: append to %s: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: append to %s: %w", path, err)
	}
	return nil
}

// StartedLine is the comment perf stat writes at the top of an -o file, e.g.
// "# started on Sat Nov 21 05:59:17 2026" followed by a blank line. Text and perf-form
// CSV output written to a file begin with it, as perf's do.
func StartedLine(t time.Time) string {
	return "# started on " + t.Format("Mon Jan _2 15:04:05 2006") + "\n\n"
}

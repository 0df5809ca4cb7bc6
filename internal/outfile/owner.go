package outfile

import (
	"io/fs"
	"os"

	"github.com/pmc-tools/pmc/internal/unix"
)

// inPlace reports whether an existing regular file must be rewritten where it is rather than
// replaced by a renamed copy: a file with other hard links (a rename would split them), or
// one owned by someone else when pmc cannot give it back (it does not run as root).
func inPlace(fi fs.FileInfo) bool {
	uid, gid, nlink, ok := unix.FileOwner(fi)
	if !ok {
		return false
	}
	if nlink > 1 {
		return true
	}
	return os.Geteuid() != 0 && (uid != os.Geteuid() || gid != os.Getegid())
}

// owner is the uid and gid of an existing file.
func owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	uid, gid, _, ok = unix.FileOwner(fi)
	return uid, gid, ok
}

// writable refuses to replace an existing file that its user could not write in place: a
// rename needs only the directory's permission, but perf (fopen "w") and the user expect a
// read-only file to stay as it is. Opening it for writing, without truncating, asks the
// kernel the very question perf's open asks (mode bits, ACLs, root's capabilities, a
// read-only mount, an immutable file). nil when fi is nil: there is no file to keep.
func writable(target string, fi fs.FileInfo) error {
	if fi == nil {
		return nil
	}
	f, err := os.OpenFile(target, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

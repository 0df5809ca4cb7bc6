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

package outfile

import (
	"io/fs"
	"os"
	"syscall"
)

// inPlace reports whether an existing regular file must be rewritten where it is rather than
// replaced by a renamed copy: a file with other hard links (a rename would split them), or
// one owned by someone else when pmc cannot give it back (it does not run as root).
func inPlace(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	if st.Nlink > 1 {
		return true
	}
	return os.Geteuid() != 0 && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid())
}

// owner is the uid and gid of an existing file.
func owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

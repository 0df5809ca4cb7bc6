package unix

import (
	"io/fs"
	"os"
	"strings"

	linux "golang.org/x/sys/unix"
)

// DirFS is os.DirFS(dir) whose ReadFile reads with open, read and close alone: os's files
// also try to join Go's poller (an epoll_ctl each, refused for regular files), stat the file
// for its size and carry a finalizer, which doubled the cost of reading sysfs's and procfs's
// many small files at every start of pmc. dir must be absolute.
func DirFS(dir string) fs.FS { return dirFS{FS: os.DirFS(dir), dir: dir} }

type dirFS struct {
	fs.FS
	dir string
}

// ReadFile implements fs.ReadFileFS.
func (d dirFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrInvalid}
	}
	path := strings.TrimSuffix(d.dir, "/") + "/" + name
	var fd int
	var err error
	for {
		fd, err = linux.Open(path, linux.O_RDONLY|linux.O_CLOEXEC, 0)
		if err != linux.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer linux.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := linux.Read(fd, buf[len(buf):cap(buf)])
		if err == linux.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

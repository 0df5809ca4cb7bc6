package host

import (
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// memFS is a read-only file system of a few files held in memory: the snapshot that Load
// writes recorded facts into. (testing/fstest's MapFS does the same but must not be linked
// into pmc.) Directories are implied by the files' paths.
type memFS map[string]string

func (m memFS) add(name, content string) { m[name] = content + "\n" }

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if c, ok := m[name]; ok {
		return &memFile{name: path.Base(name), r: strings.NewReader(c), size: int64(len(c))}, nil
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]bool{}
	var ents []fs.DirEntry
	for p := range m {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		first, rest, isDir := strings.Cut(p[len(prefix):], "/")
		if seen[first] {
			continue
		}
		seen[first] = true
		ents = append(ents, memEntry{name: first, dir: isDir && rest != ""})
	}
	if len(ents) == 0 && name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return &memDir{name: path.Base(name), ents: ents}, nil
}

type memFile struct {
	name string
	r    *strings.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memEntry{name: f.name, size: f.size}, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	name string
	ents []fs.DirEntry
	read int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memEntry{name: d.name, dir: true}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.read:]
	if n <= 0 {
		d.read = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.read += n
	return rest[:n], nil
}

// memEntry is both the fs.DirEntry and the fs.FileInfo of a memFS path.
type memEntry struct {
	name string
	dir  bool
	size int64
}

func (e memEntry) Name() string { return e.name }
func (e memEntry) IsDir() bool  { return e.dir }
func (e memEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e memEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e memEntry) Size() int64                { return e.size }
func (e memEntry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (e memEntry) ModTime() time.Time { return time.Time{} }
func (e memEntry) Sys() any           { return nil }

package qemu

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sort"
	"strings"
)

// File is one entry of an initramfs.
type File struct {
	Path string // absolute path in the guest, e.g. "/init"
	Mode uint32 // full st_mode: file type bits | permissions (use the Mode* helpers)
	Data []byte // contents of a regular file, target of a symlink
	Rdev [2]uint32
}

// File type bits of st_mode.
const (
	modeDir  = 0o040000
	modeReg  = 0o100000
	modeLink = 0o120000
	modeChr  = 0o020000
)

// Exec, Regular, Dir and CharDev build File entries.
func Exec(path string, data []byte) File { return File{Path: path, Mode: modeReg | 0o755, Data: data} }
func Regular(path string, data []byte) File {
	return File{Path: path, Mode: modeReg | 0o644, Data: data}
}
func Dir(path string) File { return File{Path: path, Mode: modeDir | 0o755} }
func CharDev(path string, major, minor uint32) File {
	return File{Path: path, Mode: modeChr | 0o600, Rdev: [2]uint32{major, minor}}
}

// WriteCPIO writes files as a "newc" (SVR4, no CRC) cpio archive, the format the kernel unpacks
// as an initramfs. Parent directories are added when missing and entries are sorted so that
// a directory precedes its contents. Paths must be absolute and clean.
func WriteCPIO(w io.Writer, files []File) error {
	all := map[string]File{}
	for _, f := range files {
		if !strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "//") || strings.HasSuffix(f.Path, "/") && f.Path != "/" {
			return fmt.Errorf("cpio: path %q: want an absolute clean path", f.Path)
		}
		if f.Path == "/" {
			continue
		}
		if _, dup := all[f.Path]; dup {
			return fmt.Errorf("cpio: duplicate path %q", f.Path)
		}
		all[f.Path] = f
		for d := parent(f.Path); d != "/"; d = parent(d) {
			if _, ok := all[d]; !ok {
				all[d] = Dir(d)
			}
		}
	}
	names := make([]string, 0, len(all))
	for p := range all {
		names = append(names, p)
	}
	sort.Strings(names) // "/a" < "/a/b": parents first
	ino := uint32(1)
	for _, p := range names {
		f := all[p]
		if f.Mode&0o170000 == modeDir || f.Mode&0o170000 == modeChr {
			f.Data = nil
		}
		if err := writeEntry(w, ino, strings.TrimPrefix(p, "/"), f); err != nil {
			return err
		}
		ino++
	}
	return writeEntry(w, 0, "TRAILER!!!", File{})
}

func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

func writeEntry(w io.Writer, ino uint32, name string, f File) error {
	nlink := uint32(1)
	if f.Mode&0o170000 == modeDir {
		nlink = 2
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		ino, f.Mode, 0, 0, nlink, 0, len(f.Data), 0, 0, f.Rdev[0], f.Rdev[1], len(name)+1, 0)
	b.WriteString(name)
	b.WriteByte(0)
	pad(&b, b.Len())
	b.Write(f.Data)
	pad(&b, len(f.Data))
	_, err := w.Write(b.Bytes())
	return err
}

func pad(b *bytes.Buffer, n int) {
	for ; n%4 != 0; n++ {
		b.WriteByte(0)
	}
}

// Initramfs returns the gzip-compressed newc archive of files.
func Initramfs(files []File) ([]byte, error) {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	if err := WriteCPIO(zw, files); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

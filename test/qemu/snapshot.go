package qemu

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing/fstest"
)

// ParseSnapshot reads the output of guestinit's `snapshot` command into a file system whose
// paths are relative to the guest's root ("sys/bus/event_source/devices/armv8_pmuv3_0/type"),
// so sysfs parsers that take an fs.FS can run on a real guest's files.
//
// Format, per file: "@@ <path> <n>\n" followed by n bytes and "\n"; unreadable files are
// "@@! <path> <error>\n" and are left out.
func ParseSnapshot(b []byte) (fstest.MapFS, error) {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	fs := fstest.MapFS{}
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("snapshot: unterminated header %q", b)
		}
		hdr := string(b[:nl])
		b = b[nl+1:]
		switch {
		case strings.HasPrefix(hdr, "@@! "):
			continue
		case strings.HasPrefix(hdr, "@@ "):
		default:
			return nil, fmt.Errorf("snapshot: bad header %q", hdr)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 || !strings.HasPrefix(f[1], "/") || len(f[1]) < 2 {
			return nil, fmt.Errorf("snapshot: bad header %q", hdr)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n+1 > len(b) || b[n] != '\n' {
			return nil, fmt.Errorf("snapshot: bad length in %q", hdr)
		}
		fs[f[1][1:]] = &fstest.MapFile{Data: append([]byte(nil), b[:n]...), Mode: 0o444}
		b = b[n+1:]
	}
	return fs, nil
}

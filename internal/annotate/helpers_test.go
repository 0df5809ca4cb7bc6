package annotate

import (
	"fmt"
	"io/fs"
	"testing/fstest"
)

func fsOf(name, content string) fs.FS {
	return fstest.MapFS{name: &fstest.MapFile{Data: []byte(content)}}
}

func fmtAddr(a Addr) string { return fmt.Sprintf("0x%x", uint64(a)) }

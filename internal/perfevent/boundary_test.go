package perfevent

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestKernelBoundary: this package is the only importer of golang.org/x/sys/unix in pmc.
// test/qemu/probe is exempt on purpose: it measures the guests' PMUs without pmc's code, as
// an independent check of pmc's numbers.
func TestKernelBoundary(t *testing.T) {
	root := filepath.Join("..", "..")
	allowed := []string{filepath.Join("internal", "perfevent"), filepath.Join("test", "qemu", "probe")}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		for _, a := range allowed {
			if filepath.Dir(rel) == a {
				return nil
			}
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "golang.org/x/sys/unix" {
				t.Errorf("%s imports golang.org/x/sys/unix: put the syscall in internal/perfevent", rel)
			}
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

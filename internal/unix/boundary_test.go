package unix

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// restricted are the imports that reach the kernel directly. Only this package may use them,
// with the exceptions below; everything else calls the wrappers here, so every system call of
// pmc can be found in one place.
var restricted = map[string]bool{"golang.org/x/sys/unix": true, "syscall": true, "unsafe": true}

// exempt lists the directories allowed some of those imports, and why.
var exempt = map[string]map[string]string{
	// The guests' /init and the independent probe are separate programs that check pmc's
	// numbers without pmc's code: they must not share its kernel boundary.
	"test/qemu/guestinit": {"syscall": "guest /init: mount, reboot", "golang.org/x/sys/unix": "guest /init", "unsafe": "guest /init"},
	"test/qemu/probe":     {"syscall": "independent checker", "golang.org/x/sys/unix": "independent checker", "unsafe": "independent checker"},
	// The benchmark harness measures pmc from outside, with wait4's rusage, as the probe
	// checks its numbers: it must not share pmc's code.
	"bench/pairs": {"syscall": "independent measurement: the rusage of the commands timed"},
	// The launch shim's system calls: part of this boundary, apart only because the shim runs
	// during package initialisation, before golang.org/x/sys/unix initialises (see its doc).
	"internal/unix/early": {"syscall": "the launch shim, before x/sys/unix initialises", "unsafe": "the launch shim's raw read and clock"},
	// The pointer chase indexes its buffer without bounds checks on non-amd64 CPUs; no
	// system call is made through it.
	"internal/mem": {"unsafe": "pointer arithmetic in the timed hop"},
}

// TestKernelBoundary fails when any Go file (tests included) outside this package imports
// golang.org/x/sys/unix, syscall or unsafe, except as exempt allows.
func TestKernelBoundary(t *testing.T) {
	root := filepath.Join("..", "..")
	self := filepath.Join("internal", "unix")
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || filepath.Dir(rel) == self {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !restricted[p] {
				continue
			}
			if _, ok := exempt[filepath.ToSlash(filepath.Dir(rel))][p]; ok {
				continue
			}
			t.Errorf("%s imports %s: call it through internal/unix", rel, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked: the walk did not see the repository", checked)
	}
}

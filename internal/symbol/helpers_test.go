package symbol

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		testenv.Tool(t, tool)
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// compile builds testdata/src into dir/out with extra compiler flags.
func compile(t *testing.T, compiler, src, out string, flags ...string) string {
	t.Helper()
	need(t, compiler)
	p := filepath.Join(t.TempDir(), out)
	args := append(append([]string{}, flags...), "-o", p, filepath.Join("testdata", src))
	if b, err := exec.Command(compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", compiler, args, err, b)
	}
	return p
}

type nmSym struct {
	addr uint64
	typ  byte
	name string
}

// nmFuncs lists nm's text symbols (T, t, i) of a file; dynamic with -D.
func nmFuncs(t *testing.T, args ...string) []nmSym {
	t.Helper()
	var out []nmSym
	sc := bufio.NewScanner(strings.NewReader(run(t, "nm", append([]string{"--defined-only"}, args...)...)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || !strings.Contains("Tti", f[1]) {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		name, _, _ := strings.Cut(f[2], "@") // nm -D shows versions, the tables do not
		out = append(out, nmSym{a, f[1][0], name})
	}
	return out
}

func loadFile(t *testing.T, path string) *Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := LoadELF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func readelfBuildID(t *testing.T, path string) string {
	for _, l := range strings.Split(run(t, "readelf", "-n", path), "\n") {
		if _, id, ok := strings.Cut(l, "Build ID: "); ok {
			return strings.TrimSpace(id)
		}
	}
	return ""
}

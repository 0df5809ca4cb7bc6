package annotate

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pmc-tools/pmc/internal/disasm"
	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// fixture is a real workload function kept in testdata (bytes and line table), so the
// goldens do not move with the compiler installed: `go test -update` rebuilds the
// workloads with -g and rewrites the fixtures, the source copies and the goldens.
type fixture struct {
	Arch    string    `json:"arch"`
	Build   string    `json:"build"` // the compiler command, for the record
	Symbol  string    `json:"symbol"`
	DSO     string    `json:"dso"`
	Start   uint64    `json:"start"`
	Code    string    `json:"code"` // hex
	Lines   []fixLine `json:"lines"`
	Symbols []fixSym  `json:"symbols"` // functions, for branch targets
}

type fixLine struct {
	Addr uint64 `json:"addr"`
	File string `json:"file"`
	Line int    `json:"line"`
}

type fixSym struct {
	Name  string `json:"name"`
	Start uint64 `json:"start"`
	Size  uint64 `json:"size"`
}

// fixtureSpecs are the functions the goldens annotate.
var fixtureSpecs = []struct {
	name, cc, src, symbol string
	flags                 []string
}{
	{"array2d-main.x86_64", "cc", "array2d", "main", nil},
	{"array2d-main.arm64", "aarch64-linux-gnu-gcc", "array2d", "main", nil},
	{"loop-main.thumb", "arm-linux-gnueabihf-gcc", "loop", "main", []string{"-mthumb"}},
	{"matmul-main.arm", "arm-linux-gnueabihf-gcc", "matmul", "main", []string{"-marm", "-march=armv7-a", "-mfpu=neon-vfpv4", "-mfloat-abi=hard"}},
}

func makeFixture(t *testing.T, cc, src, symbol string, flags []string) fixture {
	root, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Fatalf("%s: %v (scripts/deps.sh installs it)", cc, err)
	}
	exe := filepath.Join(t.TempDir(), src)
	args := append([]string{"-std=gnu11", "-O2", "-g", "-I" + filepath.Join(root, "include")}, flags...)
	args = append(args, "-static", "-o", exe, filepath.Join(root, "workloads", "src", src+".c"), "-pthread", "-lm")
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	fx := fixture{Build: cc + " -O2 -g " + src + ".c", Symbol: symbol, DSO: src}
	var fn elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 {
			fx.Symbols = append(fx.Symbols, fixSym{s.Name, s.Value &^ 1, s.Size})
			if s.Name == symbol {
				fn = s
			}
		}
	}
	if fn.Size == 0 {
		t.Fatalf("%s: no symbol %s", exe, symbol)
	}
	a, _ := disasm.ArchOf(f.Machine, fn.Value)
	fx.Arch, fx.Start = a.String(), fn.Value&^1
	// Keep only the symbols the function's branches can name: those it overlaps or calls.
	sec := f.Section(".text")
	code := make([]byte, fn.Size)
	if _, err := sec.ReadAt(code, int64(fx.Start-sec.Addr)); err != nil {
		t.Fatal(err)
	}
	fx.Code = hex.EncodeToString(code)
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			continue
		}
		lr, err := d.LineReader(e)
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for lr.Next(&le) == nil {
			if le.Address >= fx.Start && le.Address < fx.Start+fn.Size && !le.EndSequence && le.Line > 0 {
				fx.Lines = append(fx.Lines, fixLine{le.Address, path.Base(le.File.Name), le.Line})
			}
		}
	}
	sort.SliceStable(fx.Lines, func(i, j int) bool { return fx.Lines[i].Addr < fx.Lines[j].Addr })
	var keep []fixSym
	for _, s := range fx.Symbols {
		for _, in := range disasm.Decode(a, fx.Start, code, nil) {
			if in.HasTarget && in.Target >= s.Start && in.Target < s.Start+s.Size {
				keep = append(keep, s)
				break
			}
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].Start < keep[j].Start })
	fx.Symbols = keep
	// Copy the sources the line table names.
	seen := map[string]bool{}
	for _, l := range fx.Lines {
		if seen[l.File] {
			continue
		}
		seen[l.File] = true
		for _, dir := range []string{"workloads/src", "include"} {
			if b, err := os.ReadFile(filepath.Join(root, dir, l.File)); err == nil {
				if err := os.WriteFile(filepath.Join("testdata", "src", l.File), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return fx
}

// loadFixture reads testdata/NAME.json, rewriting it first when goldens are being updated.
func loadFixture(t *testing.T, name string) fixture {
	t.Helper()
	p := filepath.Join("testdata", name+".json")
	if golden.Updating() {
		for _, s := range fixtureSpecs {
			if s.name == name {
				if err := os.MkdirAll(filepath.Join("testdata", "src"), 0o755); err != nil {
					t.Fatal(err)
				}
				b, _ := json.MarshalIndent(makeFixture(t, s.cc, s.src, s.symbol, s.flags), "", " ")
				if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update makes it)", err)
	}
	var fx fixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	return fx
}

var archByName = map[string]disasm.Arch{"x86_64": disasm.X86_64, "aarch64": disasm.ARM64, "arm": disasm.ARM, "thumb": disasm.Thumb}

// decode decodes the fixture's function and gives its line lookup.
func (fx fixture) decode(t *testing.T) ([]disasm.Inst, LineFunc) {
	code, err := hex.DecodeString(fx.Code)
	if err != nil {
		t.Fatal(err)
	}
	syms := func(a uint64) (string, uint64, bool) {
		for _, s := range fx.Symbols {
			if a >= s.Start && a < s.Start+s.Size {
				return s.Name, s.Start, true
			}
		}
		return "", 0, false
	}
	insts := disasm.Decode(archByName[fx.Arch], fx.Start, code, &disasm.Options{Symbols: syms})
	lines := func(a uint64) (string, int, bool) {
		// The row of the line table in force at a: the last one at or before it.
		i := sort.Search(len(fx.Lines), func(i int) bool { return fx.Lines[i].Addr > a }) - 1
		if i < 0 {
			return "", 0, false
		}
		return fx.Lines[i].File, fx.Lines[i].Line, true
	}
	return insts, lines
}

package disasm

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// workloadSources are the workloads whose functions the objdump comparison covers.
var workloadSources = []string{"loop", "matmul", "array2d", "chase", "forkthreads", "selfmeasure"}

// toolchain is one way of building the workloads and the objdump that reads the result.
type toolchain struct {
	name, cc, objdump string
	flags             []string
}

var toolchains = []toolchain{
	{"x86_64", "cc", "objdump", nil},
	{"arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump", nil},
	{"armv7-arm", "arm-linux-gnueabihf-gcc", "arm-linux-gnueabihf-objdump",
		[]string{"-marm", "-march=armv7-a", "-mfpu=neon-vfpv4", "-mfloat-abi=hard"}},
	// Debian armhf's default: Thumb-2.
	{"armv7-thumb", "arm-linux-gnueabihf-gcc", "arm-linux-gnueabihf-objdump", []string{"-mthumb"}},
}

var (
	buildMu sync.Mutex
	builtAt = map[string]string{}
)

// build compiles workload src with tc into a shared temporary directory (once per test
// binary) and returns the static executable and the object file.
func build(t *testing.T, tc toolchain, src string) (exe, obj string) {
	t.Helper()
	for _, tool := range []string{tc.cc, tc.objdump} {
		testenv.Tool(t, tool)
	}
	root, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	key := tc.name + "/" + src
	if dir, ok := builtAt[key]; ok {
		return filepath.Join(dir, src), filepath.Join(dir, src+".o")
	}
	dir, err := os.MkdirTemp("", "pmc-disasm-"+tc.name+"-")
	if err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(root, "workloads", "src", src+".c")
	args := append([]string{"-std=gnu11", "-O2", "-I" + filepath.Join(root, "include")}, tc.flags...)
	for _, a := range [][]string{
		append(append([]string{}, args...), "-c", "-o", filepath.Join(dir, src+".o"), c),
		append(append([]string{}, args...), "-static", "-o", filepath.Join(dir, src), c, "-pthread", "-lm"),
	} {
		if out, err := exec.Command(tc.cc, a...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", tc.cc, strings.Join(a, " "), err, out)
		}
	}
	builtAt[key] = dir
	return filepath.Join(dir, src), filepath.Join(dir, src+".o")
}

// objLine is one line of objdump -d: an instruction or data item.
type objLine struct {
	addr uint64
	op   string
	text string
}

var objdumpRE = regexp.MustCompile(`^\s*([0-9a-f]+):\t(.*)$`)

// runObjdump disassembles exe's code sections with every zero kept.
func runObjdump(t *testing.T, tool, exe string) map[uint64]objLine {
	t.Helper()
	out, err := exec.Command(tool, "-d", "-z", "--no-show-raw-insn", exe).Output()
	if err != nil {
		t.Fatalf("%s -d %s: %v", tool, exe, err)
	}
	lines := map[uint64]objLine{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := objdumpRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		a, _ := strconv.ParseUint(m[1], 16, 64)
		text := strings.TrimSpace(m[2])
		op, rest, _ := strings.Cut(strings.ReplaceAll(text, "\t", " "), " ")
		for x86Prefix(op) && rest != "" { // prefixes are not the mnemonic
			op, rest, _ = strings.Cut(strings.TrimSpace(rest), " ")
		}
		lines[a] = objLine{a, op, text}
	}
	return lines
}

// elfImage is what the comparison needs of an executable.
type elfImage struct {
	f    *elf.File
	syms []elf.Symbol
	maps []MapSym
}

func openELF(t *testing.T, path string) *elfImage {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	return &elfImage{f: f, syms: syms, maps: Mapping(syms)}
}

// funcs are the sized function symbols of the image, sorted by address.
func (im *elfImage) funcs() []elf.Symbol {
	var out []elf.Symbol
	for _, s := range im.syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Section != elf.SHN_UNDEF {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

func (im *elfImage) symbolizer() Symbolizer {
	fs := im.funcs()
	return func(a uint64) (string, uint64, bool) {
		i := sort.Search(len(fs), func(i int) bool { return fs[i].Value&^1 > a }) - 1
		if i >= 0 && a < fs[i].Value&^1+fs[i].Size {
			return fs[i].Name, fs[i].Value &^ 1, true
		}
		return "", 0, false
	}
}

// code is the bytes of function s.
func (im *elfImage) code(t *testing.T, s elf.Symbol) (uint64, []byte) {
	start := s.Value &^ 1
	for _, sec := range im.f.Sections {
		if sec.Type == elf.SHT_PROGBITS && start >= sec.Addr && start+s.Size <= sec.Addr+sec.Size {
			b := make([]byte, s.Size)
			if _, err := sec.ReadAt(b, int64(start-sec.Addr)); err != nil {
				t.Fatal(err)
			}
			return start, b
		}
	}
	t.Fatalf("%s: no section holds %#x", s.Name, start)
	return 0, nil
}

// compareStats counts agreement between pmc's decoding and objdump's.
type compareStats struct {
	insts, boundaryMiss, opMiss int
	neon                        int            // A32 Advanced SIMD words shown as .word: the known exception
	dataChunks                  int            // literal pool / table bytes split differently (.short vs .byte)
	exceptions                  map[string]int // "ours|objdump" -> count
	firstMiss                   []string
}

func (st *compareStats) add(t *testing.T, im *elfImage, obj map[uint64]objLine, s elf.Symbol) {
	start, b := im.code(t, s)
	arch, _ := ArchOf(im.f.Machine, s.Value)
	got := Decode(arch, start, b, &Options{Symbols: im.symbolizer(), Mapping: im.maps})
	want := map[uint64]bool{}
	for a := range obj {
		if a >= start && a < start+s.Size {
			want[a] = true
		}
	}
	for _, in := range got {
		st.insts++
		o, ok := obj[in.Addr]
		if !ok && in.Class == Data && in.Op != ".inst" && (arch == ARM || arch == Thumb) {
			st.dataChunks++
			continue
		}
		if !ok {
			st.boundaryMiss++
			st.note(fmt.Sprintf("%s %#x: pmc starts an instruction (%s) objdump does not", s.Name, in.Addr, in.Text))
			continue
		}
		delete(want, in.Addr)
		if a, b := normOp(in.Op), normOp(o.op); a != b {
			if in.Class == Data && strings.HasPrefix(o.op, ".") {
				st.dataChunks++
				continue
			}
			if in.Op == ".word" && isNEON(arch, in.Bytes) {
				st.neon++
				continue
			}
			st.opMiss++
			st.exceptions[a+" | "+b]++
			st.note(fmt.Sprintf("%s %#x: pmc %q objdump %q", s.Name, in.Addr, in.Text, o.text))
		}
	}
	for a := range want {
		if strings.HasPrefix(obj[a].op, ".") && (arch == ARM || arch == Thumb) {
			st.dataChunks++
			continue
		}
		st.boundaryMiss++
		st.note(fmt.Sprintf("%s %#x: objdump starts an instruction (%s) pmc does not", s.Name, a, obj[a].text))
	}
}

func (st *compareStats) note(s string) {
	if len(st.firstMiss) < 30 {
		st.firstMiss = append(st.firstMiss, s)
	}
}

// isNEON reports whether an instruction is in the Advanced SIMD space, which pmc does not
// decode: A32 1111 001x and 1111 0100 xxx0; T32 111x 1111 and 1111 1001 xxx0 (first halfword).
func isNEON(a Arch, b []byte) bool {
	if len(b) != 4 {
		return false
	}
	if a == Thumb {
		return b[1]&0xef == 0xef || b[1] == 0xf9 && b[0]&0x10 == 0
	}
	return b[3]>>1 == 0x79 || b[3] == 0xf4 && b[2]&0x10 == 0
}

// normOp removes spelling differences that are not disagreements: the Thumb width
// qualifiers, case.
func normOp(op string) string {
	op = strings.ToLower(op)
	op = strings.TrimSuffix(strings.TrimSuffix(op, ".w"), ".n")
	return op
}

// TestObjdumpWorkloads: for every instruction of every function the workloads define
// (the functions of their object files, found in the static executables), pmc's boundaries
// equal objdump's exactly and its mnemonics agree.
func TestObjdumpWorkloads(t *testing.T) {
	for _, tc := range toolchains {
		t.Run(tc.name, func(t *testing.T) {
			st := compareStats{exceptions: map[string]int{}}
			for _, src := range workloadSources {
				exe, objf := build(t, tc, src)
				im, o := openELF(t, exe), openELF(t, objf)
				obj := runObjdump(t, tc.objdump, exe)
				mine := map[string]bool{}
				for _, s := range o.funcs() {
					mine[s.Name] = true
				}
				n := 0
				for _, s := range im.funcs() {
					if mine[s.Name] {
						st.add(t, im, obj, s)
						n++
					}
				}
				if n < len(mine) {
					t.Errorf("%s: %d of the object's %d functions found in the executable", src, n, len(mine))
				}
			}
			t.Logf("%s: %d instructions, %d boundary disagreements, %d mnemonic disagreements, %d NEON words (known exception)",
				tc.name, st.insts, st.boundaryMiss, st.opMiss, st.neon)
			if st.boundaryMiss+st.opMiss > 0 {
				t.Errorf("disagreements with objdump (first ones):\n  %s\nby mnemonic: %v",
					strings.Join(st.firstMiss, "\n  "), st.exceptions)
			}
		})
	}
}

// TestObjdumpWholeBinary compares every function of one static executable (the workload and
// all of the C library linked into it): boundaries must agree exactly; mnemonic agreement is
// logged with the disagreements by kind (go test -v shows the rates), and must stay above
// the floor measured when this test was written.
func TestObjdumpWholeBinary(t *testing.T) {
	floor := map[string]float64{"x86_64": 0.999, "arm64": 0.996, "armv7-arm": 0.999, "armv7-thumb": 0.999}
	for _, tc := range toolchains {
		t.Run(tc.name, func(t *testing.T) {
			exe, _ := build(t, tc, "matmul")
			compareWhole(t, tc.name, tc.objdump, exe, floor[tc.name])
		})
	}
}

// compareWhole compares every cleanly delimited function of exe with objdump's decoding.
func compareWhole(t *testing.T, name, tool, exe string, floor float64) {
	im := openELF(t, exe)
	obj := runObjdump(t, tool, exe)
	st := compareStats{exceptions: map[string]int{}}
	// objdump restarts decoding at every symbol and runs past a function's size to
	// the next symbol; compare only the functions where both views coincide: no
	// other symbol inside, objdump's stream ends exactly at the function's end.
	starts := map[uint64]bool{}
	for _, s := range im.syms {
		if s.Section != elf.SHN_UNDEF && s.Value != 0 && !strings.HasPrefix(s.Name, "$") {
			starts[s.Value&^1] = true
		}
	}
	skipped := 0
	for _, s := range im.funcs() {
		start, end := s.Value&^1, s.Value&^1+s.Size
		_, atEnd := obj[end]
		_, atStart := obj[start]
		clean := atStart && (atEnd || starts[end])
		for a := start + 1; a < end && clean; a++ {
			clean = !starts[a]
		}
		if !clean {
			skipped++
			continue
		}
		st.add(t, im, obj, s)
	}
	rate := 1 - float64(st.opMiss+st.neon)/float64(st.insts)
	type kv struct {
		k string
		n int
	}
	var top []kv
	for k, n := range st.exceptions {
		top = append(top, kv{k, n})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].k < top[j].k })
	if len(top) > 12 {
		top = top[:12]
	}
	t.Logf("%s: %d instructions in %d functions (%d overlapping or cut skipped); mnemonics agree for %.3f%% (%d differ, %d NEON words); %d data chunks split differently; most frequent (pmc | objdump): %v",
		name, st.insts, len(im.funcs())-skipped, skipped, 100*rate, st.opMiss, st.neon, st.dataChunks, top)
	if st.boundaryMiss > 0 {
		t.Errorf("%d boundary disagreements:\n  %s", st.boundaryMiss, strings.Join(st.firstMiss, "\n  "))
	}
	if rate < floor {
		t.Errorf("mnemonic agreement %.3f below the floor %.3f", rate, floor)
	}
}

// TestObjdumpPMC compares the whole of pmc itself, built for x86-64 and arm64 (Go's code
// generator: a different instruction mix from gcc's). Two cross builds and 870,000
// instructions take minutes on a small machine: it runs with PMC_DISASM_PMC=1.
func TestObjdumpPMC(t *testing.T) {
	if os.Getenv("PMC_DISASM_PMC") != "1" {
		t.Skip("compares pmc's own binaries only with PMC_DISASM_PMC=1 (minutes)")
	}
	root, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ goarch, tool string }{{"amd64", "objdump"}, {"arm64", "aarch64-linux-gnu-objdump"}} {
		t.Run(c.goarch, func(t *testing.T) {
			testenv.Tool(t, c.tool)
			exe := filepath.Join(t.TempDir(), "pmc")
			cmd := exec.Command("go", "build", "-o", exe, "./cmd/pmc")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+c.goarch, "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			compareWhole(t, "pmc-"+c.goarch, c.tool, exe, 0.99)
		})
	}
}

// TestX86LengthDecoder checks pmc's own x86 length decoder (used where x86asm fails) on
// every instruction of a static executable: its length equals objdump's.
func TestX86LengthDecoder(t *testing.T) {
	exe, _ := build(t, toolchains[0], "matmul")
	im := openELF(t, exe)
	obj := runObjdump(t, toolchains[0].objdump, exe)
	text := im.f.Section(".text")
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	var addrs []uint64
	for a := range obj {
		if a >= text.Addr && a < text.Addr+uint64(len(code)) {
			addrs = append(addrs, a)
		}
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	bad := 0
	for i := 0; i+1 < len(addrs); i++ {
		want := int(addrs[i+1] - addrs[i])
		if want > 15 || strings.HasPrefix(obj[addrs[i]].op, "(bad)") {
			continue // padding runs, objdump's own failures
		}
		off := addrs[i] - text.Addr
		if got := x86Len(code[off:]); got != want {
			if bad++; bad <= 20 {
				t.Errorf("%#x % x: length %d, objdump %d (%s)", addrs[i], code[off:off+uint64(want)], got, want, obj[addrs[i]].text)
			}
		}
	}
	t.Logf("%d instructions measured, %d wrong", len(addrs)-1, bad)
}

package cli

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// kernelDir holds kernel.data, recorded by perf 6.1 on the project's x86_64 VM (make.sh),
// and that machine as far as kernel symbols go: machine/sys/kernel/notes (its build-id) and
// the lines of its /proc/kallsyms the samples need. kernel.data.pmcsym keeps the symbols of
// its user-space objects only, so the kernel's come from the machine or the flags.
const kernelDir = "testdata/kernel"

// kernelCases run pmc report and perf report (testdata/perf-report/NAME.txt) on kernel.data
// and on copies of it that another kernel recorded (other.data: the kernel's build-id
// changed) or that name no kernel build-id (none.data: its BUILD_ID entry renamed), with
// perf's --kallsyms and --vmlinux (kernel images made from the kallsyms lines: vmlinux with
// the recorded kernel's build-id, vmlinux-other with the other's).
var kernelCases = []struct {
	name, file string
	args       []string
	stderr     string // what pmc says (nothing when "")
}{
	{"kernel-same", "kernel.data", nil, ""},
	{"kernel-other", "other.data", nil, "kernel samples show addresses: the recorded kernel (build-id b5a5"},
	{"kernel-none", "none.data", nil, ""},
	{"kernel-kallsyms", "other.data", []string{"--kallsyms", "kallsyms"}, ""},
	{"kernel-vmlinux", "other.data", []string{"--vmlinux", "vmlinux-other"}, ""},
	{"kernel-vmlinux-mismatch", "other.data", []string{"--vmlinux", "vmlinux"}, "vmlinux has build-id 4a5a"},
}

// TestReportKernelAgreesWithPerf: kernel addresses are named from the running kernel only
// when the recording's kernel build-id is the running kernel's (or the recording names
// none), else left as addresses, unless --kallsyms or --vmlinux (of the recorded build-id)
// names them: perf report's output to the byte. The machine is the recording machine's
// snapshot, so the test is the same on every host; -update-perf runs perf on the recording
// machine (the recorded kernel running).
func TestReportKernelAgreesWithPerf(t *testing.T) {
	dir, recorded := kernelFiles(t)
	m := host.Probe(os.DirFS(filepath.Join(kernelDir, "machine")), os.DirFS(filepath.Join(kernelDir, "machine", "sys")))
	if id, err := m.KernelBuildID(); err != nil || id != recorded {
		t.Fatalf("the snapshot's kernel %q (%v) is not the recorded %s", id, err, recorded)
	}
	old := machine
	machine = func() *host.Machine { return m }
	t.Cleanup(func() { machine = old })
	if golden.UpdatingPerf() {
		out, err := exec.Command("perf", "buildid-list", "-k").Output()
		if err != nil || strings.TrimSpace(string(out)) != recorded {
			t.Fatalf("-update-perf needs perf and the recorded kernel (%s) running: %q %v", recorded, out, err)
		}
	}
	for _, c := range kernelCases {
		t.Run(c.name, func(t *testing.T) {
			goldenPath := filepath.Join("testdata", "perf-report", c.name+".txt")
			if golden.UpdatingPerf() {
				cmd := exec.Command("perf", append([]string{"report", "--stdio", "-i", c.file}, c.args...)...)
				cmd.Dir = dir
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("perf report %v: %v", c.args, err)
				}
				golden.Write(t, goldenPath, []byte(tipLine.ReplaceAllString(string(out), "")))
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (go test -update-perf runs perf to write it)", err)
			}
			args := []string{"report", "--stdio", "-i", filepath.Join(dir, c.file)}
			for i, a := range c.args {
				if i%2 == 1 {
					a = filepath.Join(dir, a)
				}
				args = append(args, a)
			}
			var stdout, stderr bytes.Buffer
			if code := testRun(args, &stdout, &stderr); code != 0 {
				t.Fatalf("pmc %v: exit %d: %s", args, code, stderr.String())
			}
			if got := tipLine.ReplaceAllString(stdout.String(), ""); got != string(want) {
				t.Errorf("differs from perf's:\n%s", golden.Diff(string(want), got))
			}
			if s := stderr.String(); c.stderr == "" && s != "" || !strings.Contains(s, c.stderr) {
				t.Errorf("stderr %q, want %q", s, c.stderr)
			}
		})
	}
}

// kernelFiles writes into a temporary directory kernel.data, other.data and none.data, each
// with kernelDir's archive beside it, the kallsyms lines and the two kernel images; it
// returns the directory and the recorded kernel's build-id.
func kernelFiles(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(kernelDir, "kernel.data"))
	if err != nil {
		t.Fatal(err)
	}
	const recorded = "4a5a9b0affb66c437abcd455d2738af879985fa9"
	kid, _ := hex.DecodeString(recorded)
	other := make([]byte, len(kid))
	for i, b := range kid {
		other[i] = ^b
	}
	name := []byte(symbol.KernelName + "\x00")
	if bytes.Count(data, kid) != 1 || bytes.Count(data, name) != 1 {
		t.Fatalf("kernel.data holds the kernel's build-id %d times and its entry %d times, want 1", bytes.Count(data, kid), bytes.Count(data, name))
	}
	if golden.UpdatingPerf() {
		writeUserArchive(t, filepath.Join(kernelDir, "kernel.data"))
	}
	arch, err := os.ReadFile(symbol.ArchivePath(filepath.Join(kernelDir, "kernel.data")))
	if err != nil {
		t.Fatalf("%v (go test -update-perf writes it)", err)
	}
	files := map[string][]byte{
		"kernel.data": data,
		"other.data":  bytes.Replace(data, kid, other, 1),
		"none.data":   bytes.Replace(data, name, []byte("[kernel.kallsymX]\x00"), 1),
	}
	for n, d := range files {
		write(t, filepath.Join(dir, n), d)
		write(t, symbol.ArchivePath(filepath.Join(dir, n)), arch)
	}
	kallsyms, err := os.ReadFile(filepath.Join(kernelDir, "machine", "proc", "kallsyms"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "kallsyms"), kallsyms)
	kernelImage(t, string(kallsyms), filepath.Join(dir, "vmlinux"), recorded)
	kernelImage(t, string(kallsyms), filepath.Join(dir, "vmlinux-other"), hex.EncodeToString(other))
	return dir, recorded
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// kernelImage links a kernel image (an ELF vmlinux: symbol table, build-id, an empty .text
// spanning the kernel's text) with the functions of the kallsyms lines at their offsets from
// _text, linked 16 MiB below where they ran, as KASLR moves a kernel: both tools relocate
// it by the recording's kernel mapping.
func kernelImage(t *testing.T, kallsyms, out, buildID string) {
	t.Helper()
	for _, tool := range []string{"as", "ld"} { // binutils, which gcc needs
		testenv.Tool(t, tool)
	}
	type ksym struct {
		addr uint64
		name string
	}
	var syms []ksym
	var text uint64
	for _, l := range strings.Split(strings.TrimSpace(kallsyms), "\n") {
		f := strings.Fields(l)
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil || len(f) < 3 || !strings.Contains("tTwW", f[1]) {
			continue
		}
		if f[2] == "_text" {
			text = a
		}
		syms = append(syms, ksym{a, f[2]})
	}
	sort.Slice(syms, func(i, j int) bool { return syms[i].addr < syms[j].addr })
	var asm strings.Builder
	asm.WriteString(".section .ktext,\"ax\",@nobits\n")
	seen := map[string]bool{}
	for i, s := range syms {
		if seen[s.name] || s.addr < text {
			continue
		}
		seen[s.name] = true
		end := s.addr + 16
		for _, n := range syms[i+1:] {
			if n.addr > s.addr {
				end = n.addr
				break
			}
		}
		fmt.Fprintf(&asm, ".org %#x\n.globl %s\n.type %s, @function\n%s:\n.size %s, %#x\n", s.addr-text, s.name, s.name, s.name, s.name, end-s.addr)
	}
	fmt.Fprintf(&asm, ".org %#x\n", syms[len(syms)-1].addr-text+16)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "k.s"), []byte(asm.String()))
	write(t, filepath.Join(dir, "k.ld"), []byte(fmt.Sprintf("SECTIONS { . = %#x; .text : { *(.ktext) } .note.gnu.build-id : { *(.note.gnu.build-id) } }\n", text-16<<20)))
	for _, c := range [][]string{{"as", "-o", "k.o", "k.s"}, {"ld", "-o", out, "-T", "k.ld", "--build-id=0x" + buildID, "-e", "_text", "k.o"}} {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, b)
		}
	}
}

// writeUserArchive writes FILE.pmcsym for a committed recording from this machine's
// binaries: the symbols its samples hit in user space, none of the kernel's.
func writeUserArchive(t *testing.T, file string) {
	t.Helper()
	writeTestArchive(t, file)
	p := symbol.ArchivePath(file)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	a, err := symbol.OpenArchive(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var user []*symbol.Table
	for _, tab := range a.Tables() {
		if tab.Kind != symbol.KindKernel {
			user = append(user, tab)
		}
	}
	var buf bytes.Buffer
	if err := symbol.WriteArchive(&buf, user); err != nil {
		t.Fatal(err)
	}
	write(t, p, buf.Bytes())
}

// TestDiffKernelRows: pmc diff pairs an unresolved kernel address only between recordings
// of one kernel build: kernel.data's kernel is named (the machine runs it), other.data's and
// other2.data's (two other kernels) stay addresses, and the same address of two kernels is
// two rows (perf diff would pair them: one row, two unrelated functions).
func TestDiffKernelRows(t *testing.T) {
	dir, _ := kernelFiles(t)
	m := host.Probe(os.DirFS(filepath.Join(kernelDir, "machine")), os.DirFS(filepath.Join(kernelDir, "machine", "sys")))
	old := machine
	machine = func() *host.Machine { return m }
	t.Cleanup(func() { machine = old })
	data, err := os.ReadFile(filepath.Join(dir, "other.data"))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := hex.DecodeString("b5a564f5004993bc85432baa2d8c75078667a056") // other.data's kernel
	other2 := bytes.Replace(data, id, bytes.Repeat([]byte{0x5a}, len(id)), 1)
	write(t, filepath.Join(dir, "other2.data"), other2)
	type row struct {
		Symbol string
		Kernel bool
		Cells  []*struct{ Period uint64 }
	}
	diff := func(a, b string) []row {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := []string{"diff", "--json", filepath.Join(dir, a), filepath.Join(dir, b)}
		if code := testRun(args, &stdout, &stderr); code != 0 {
			t.Fatalf("pmc %v: exit %d: %s", args, code, stderr.String())
		}
		var d struct{ Rows []row }
		if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		return d.Rows
	}
	count := func(rows []row) (addrPaired, addrAlone, namedPaired int) {
		for _, r := range rows {
			if !r.Kernel {
				continue
			}
			both := r.Cells[0] != nil && r.Cells[1] != nil
			switch {
			case strings.HasPrefix(r.Symbol, "0x") && both:
				addrPaired++
			case strings.HasPrefix(r.Symbol, "0x"):
				addrAlone++
			case both:
				namedPaired++
			}
		}
		return
	}
	if p, a, n := count(diff("other.data", "other2.data")); p != 0 || a < 20 || n != 0 {
		t.Errorf("two other kernels: %d address rows paired, %d alone, %d named rows paired; want 0, every one, 0", p, a, n)
	}
	if p, a, n := count(diff("other.data", "other.data")); p < 10 || a != 0 || n != 0 {
		t.Errorf("one other kernel: %d address rows paired, %d alone, %d named: want all paired", p, a, n)
	}
	if p, a, n := count(diff("kernel.data", "none.data")); p != 0 || a != 0 || n < 10 {
		t.Errorf("the running kernel, with and without its build-id: %d address rows paired, %d alone, %d named rows paired: want named rows paired", p, a, n)
	}
}

package web

import (
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/driver"
	pprof "github.com/google/pprof/profile"

	pmcdriver "github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
)

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		testenv.Tool(t, tool)
	}
}

// matmul builds the matrix product as a PIE with line information, naive() out of line.
func matmul(t *testing.T) string {
	t.Helper()
	need(t, "cc")
	root, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "workloads", "src")
	exe := filepath.Join(t.TempDir(), "matmul")
	if out, err := exec.Command("cc", "-std=gnu11", "-O2", "-g", "-fno-inline", "-I", src, "-o", exe, filepath.Join(src, "matmul.c")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return exe
}

// objTool returns the ObjTool over the binary exe, as a report of a recording of it has it.
func newObjTool(t *testing.T, exe string) *objTool {
	t.Helper()
	res := symbol.NewResolver(os.DirFS("/"))
	tab, err := res.Open(exe, "")
	if err != nil {
		t.Fatal(err)
	}
	code := &pmcdriver.Code{Reader: symbol.NewCodeReader(res)}
	t.Cleanup(code.Close)
	obj := &objTool{}
	obj.add(&profile.DSO{Name: exe, BuildID: tab.BuildID, Table: tab}, code, 0, 1<<20)
	obj.add(&profile.DSO{Name: symbol.KernelName, Kernel: true, Table: &symbol.Table{Kind: symbol.KindKernel}}, code, 0, 1)
	return obj
}

// TestObjToolAgreesWithBinutils: what pprof's views read through the ObjTool (symbols,
// disassembly, source lines) is what nm, objdump and addr2line say of the same binary.
func TestObjToolAgreesWithBinutils(t *testing.T) {
	need(t, "nm", "objdump", "addr2line")
	exe := matmul(t)
	obj := newObjTool(t, exe)
	f, err := obj.Open(exe, 0, 1<<20, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// Symbols: naive's range as nm -S gives it.
	nm, err := exec.Command("nm", "-S", exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^([0-9a-f]+) ([0-9a-f]+) t naive$`).FindStringSubmatch(string(nm))
	if m == nil {
		t.Fatalf("nm shows no naive:\n%s", nm)
	}
	start, _ := strconv.ParseUint(m[1], 16, 64)
	size, _ := strconv.ParseUint(m[2], 16, 64)
	syms, err := f.Symbols(regexp.MustCompile(`^naive$`), 0)
	if err != nil || len(syms) != 1 || syms[0].Start != start || syms[0].End != start+size-1 || syms[0].Name[0] != "naive" {
		t.Fatalf("Symbols(^naive$) = %+v, %v; nm: %x size %x", syms, err, start, size)
	}
	if at, _ := f.Symbols(nil, start+3); len(at) != 1 || at[0].Name[0] != "naive" {
		t.Errorf("Symbols(nil, naive+3) = %+v", at)
	}

	// Disassembly of naive and the function after it: the instructions objdump shows inside
	// them (not the padding between), at the same addresses with the same text.
	end := start + size + 64
	insts, err := obj.Disasm(exe, start, end, false)
	if err != nil {
		t.Fatal(err)
	}
	dump, err := exec.Command("objdump", "-d", "--no-show-raw-insn", "--start-address=0x"+strconv.FormatUint(start, 16),
		"--stop-address=0x"+strconv.FormatUint(end, 16), exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]string{}
	inNaive := 0
	for _, m := range regexp.MustCompile(`(?m)^\s+([0-9a-f]+):\s+(.*?)\s*$`).FindAllStringSubmatch(string(dump), -1) {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		want[a] = strings.Join(strings.Fields(m[2]), " ")
		if a < start+size {
			inNaive++
		}
	}
	funcs := map[string]int{}
	for _, in := range insts {
		if text := strings.Join(strings.Fields(in.Text), " "); want[in.Addr] != text {
			t.Errorf("Disasm: %x %s; objdump: %q", in.Addr, in.Text, want[in.Addr])
		}
		funcs[in.Function]++
	}
	if funcs["naive"] != inNaive || len(funcs) != 2 {
		t.Errorf("Disasm over naive and the next function: %v; objdump: %d in naive", funcs, inNaive)
	}

	// Source lines: addr2line's for every instruction of naive (file and line; pmc reads no
	// inlining, and naive inlines nothing).
	var addrs []string
	for _, in := range insts {
		if in.Function == "naive" {
			addrs = append(addrs, strconv.FormatUint(in.Addr, 16))
		}
	}
	a2l, err := exec.Command("addr2line", append([]string{"-e", exe}, addrs...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSpace(string(a2l)), "\n") {
		a, _ := strconv.ParseUint(addrs[i], 16, 64)
		fr, err := f.SourceLine(a)
		l = strings.Fields(l)[0] // "file:line (discriminator n)"
		if err != nil || len(fr) != 1 || fr[0].Func != "naive" || fr[0].File+":"+strconv.Itoa(fr[0].Line) != l {
			t.Errorf("SourceLine(%s) = %+v, %v; addr2line: %s", addrs[i], fr, err, l)
		}
		if insts[i].File+":"+strconv.Itoa(insts[i].Line) != l {
			t.Errorf("Disasm's line of %s: %s:%d; addr2line: %s", addrs[i], insts[i].File, insts[i].Line, l)
		}
	}
}

// TestObjToolRefuses: pprof's guesses at other paths, and the kernel (no code), fail to open.
func TestObjToolRefuses(t *testing.T) {
	exe := matmul(t)
	obj := newObjTool(t, exe)
	for _, name := range []string{"/root/pprof/binaries/matmul", filepath.Join(filepath.Dir(exe), ".debug", "matmul.debug"), symbol.KernelName} {
		if f, err := obj.Open(name, 0, 1, 0, ""); err == nil {
			f.Close()
			t.Errorf("Open(%s) succeeded", name)
		}
	}
	if _, err := obj.Disasm(exe, 1<<30, 1<<30+16, false); err == nil {
		t.Error("Disasm where no function is succeeded")
	}
}

// TestPprofDefinesOurFlags: every flag the web view sets is one pprof's driver defines (a
// renamed flag would otherwise be ignored silently), and pprof takes our sources as given.
func TestPprofDefinesOurFlags(t *testing.T) {
	fs := newFlagSet([]string{"new"}, map[string]string{"http": "127.0.0.1:1", "no_browser": "true", "symbolize": "none",
		"diff_base": "base", "normalize": "true"})
	var mu sync.Mutex // pprof fetches the profile and its base from two goroutines
	var fetched []string
	var unknown error
	err := driver.PProf(&driver.Options{Flagset: fs, UI: &ui{w: io.Discard}, Sym: noSymbolizer{}, Obj: &objTool{},
		Fetch: fetchFunc(func(src string) (*pprof.Profile, string, error) {
			mu.Lock()
			defer mu.Unlock()
			fetched = append(fetched, src)
			unknown = fs.unknown()
			return nil, "", errors.New("stop here")
		})})
	if err == nil || unknown != nil {
		t.Fatalf("PProf: %v; flags: %v", err, unknown)
	}
	if sort.Strings(fetched); strings.Join(fetched, ",") != "base,new" {
		t.Errorf("pprof fetched %v, want base (-diff_base) and new", fetched)
	}
	bad := newFlagSet(nil, map[string]string{"no_such_flag": "1"})
	bad.String("http", "", "")
	if err := bad.unknown(); err == nil || !strings.Contains(err.Error(), "no_such_flag") {
		t.Errorf("unknown() = %v", err)
	}
}

type fetchFunc func(string) (*pprof.Profile, string, error)

func (f fetchFunc) Fetch(src string, _, _ time.Duration) (*pprof.Profile, string, error) {
	return f(src)
}

func TestListen(t *testing.T) {
	for _, c := range []struct{ in, host string }{{"", "127.0.0.1"}, {"0", "127.0.0.1"}, {":0", "127.0.0.1"}, {"localhost:0", "127.0.0.1"}, {"[::1]:0", "::1"}} {
		ln, err := Listen(c.in)
		if err != nil {
			if c.host == "::1" {
				continue // no IPv6 loopback here
			}
			t.Errorf("Listen(%q): %v", c.in, err)
			continue
		}
		a := ln.Addr().(*net.TCPAddr)
		if a.IP.String() != c.host || a.Port == 0 {
			t.Errorf("Listen(%q) on %v", c.in, a)
		}
		ln.Close()
	}
	for _, bad := range []string{"1.2.3.4:5:6", "localhost:http-nope"} {
		if ln, err := Listen(bad); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", bad)
		} else if !strings.HasPrefix(err.Error(), "--http ") {
			t.Errorf("Listen(%q): %v", bad, err)
		}
	}
}

// TestLocalRequest: bound to loopback, only this machine's clients naming it are served (a
// page of another site resolving its name to 127.0.0.1 sends its own Host).
func TestLocalRequest(t *testing.T) {
	for _, c := range []struct {
		remote, host string
		ok           bool
	}{
		{"127.0.0.1:5000", "127.0.0.1:8080", true},
		{"127.0.0.1:5000", "localhost:8080", true},
		{"[::1]:5000", "[::1]:8080", true},
		{"127.0.0.1:5000", "evil.example:8080", false},
		{"127.0.0.1:5000", "127.0.0.1.evil.example", false},
		{"10.0.0.2:5000", "127.0.0.1:8080", false},
	} {
		r := httptest.NewRequest("GET", "/top", nil)
		r.RemoteAddr, r.Host = c.remote, c.host
		if got := localRequest(r); got != c.ok {
			t.Errorf("remote %s host %s: %v", c.remote, c.host, got)
		}
	}
}

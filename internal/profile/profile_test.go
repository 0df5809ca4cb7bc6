package profile

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
)

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		testenv.Tool(t, tool)
	}
}

// nmAddr is nm's address of a symbol of bin.
func nmAddr(t *testing.T, bin, name string) uint64 {
	t.Helper()
	out, err := exec.Command("nm", "--defined-only", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[2] == name {
			a, _ := strconv.ParseUint(f[0], 16, 64)
			return a
		}
	}
	t.Fatalf("nm: no %s in %s", name, bin)
	return 0
}

// textMmap is the mmap record the kernel reports for bin's executable segment loaded at
// base (0 for a non-PIE executable).
func textMmap(t *testing.T, pid int, bin string, base uint64) MmapEvent {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			start := (base + p.Vaddr) &^ 0xfff
			end := (base + p.Vaddr + p.Memsz + 0xfff) &^ 0xfff
			return MmapEvent{Pid: pid, Tid: pid, Start: start, Len: end - start, Pgoff: p.Off &^ 0xfff, Filename: bin}
		}
	}
	t.Fatal("no executable segment")
	return MmapEvent{}
}

const (
	ctxUser   = ^uint64(512 - 1)
	ctxKernel = ^uint64(128 - 1)
)

func TestStaticWorkloadReport(t *testing.T) {
	need(t, "nm")
	bin := testenv.Workload(t, "loop")
	mainA, dieA := nmAddr(t, bin, "main"), nmAddr(t, bin, "die")
	startA := nmAddr(t, bin, "__libc_start_call_main")
	b := NewBuilder(symbol.NewResolver(os.DirFS("/")))
	b.Event(7, "cpu-clock:u")
	b.Comm(CommEvent{Pid: 100, Tid: 100, Comm: "loop", Exec: true})
	b.Mmap(textMmap(t, 100, bin, 0))
	// 3 samples in main called from __libc_start_call_main; 1 in die called from main;
	// 1 outside any mapping.
	for i := 0; i < 3; i++ {
		b.Sample(SampleEvent{Pid: 100, Tid: 100, IP: mainA + 8, Period: 1000, EventID: 7,
			Callchain: []uint64{ctxUser, mainA + 8, startA + 0x20}})
	}
	b.Sample(SampleEvent{Pid: 100, Tid: 100, IP: dieA + 4, Period: 1000, EventID: 7,
		Callchain: []uint64{ctxUser, dieA + 4, mainA + 0x30, startA + 0x20}})
	b.Sample(SampleEvent{Pid: 100, Tid: 100, IP: 0x1234, Period: 1000, EventID: 7})
	p := b.Profile()
	if len(p.Warnings) != 0 {
		t.Errorf("warnings: %v", p.Warnings)
	}
	r, err := Aggregate(p, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := rows(r, false)
	want := []string{
		"60.00% loop loop [.] main",
		"20.00% loop loop [.] die", // ties: as perf orders them, what has no mapping last
		"20.00% loop [unknown] [.] 0x0000000000001234",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("self report:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rc, err := Aggregate(p, 0, Options{Children: true, CallGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	got = rows(rc, true)
	byName := map[string]*Entry{}
	for _, e := range rc.Entries {
		byName[e.Values[2]] = e
	}
	for name, w := range map[string][2]uint64{
		"[.] main": {3000, 4000}, "[.] die": {1000, 1000}, "[.] __libc_start_call_main": {0, 4000},
	} {
		e := byName[name]
		if e == nil || e.Self != w[0] || e.Children != w[1] {
			t.Errorf("%s: %+v, want self %d children %d (rows %v)", name, e, w[0], w[1], got)
		}
	}
	if rc.Entries[0].Values[2] != "[.] __libc_start_call_main" && rc.Entries[0].Values[2] != "[.] main" {
		t.Errorf("first children row %v", rc.Entries[0].Values)
	}
	// die's callers: die <- main <- __libc_start_call_main.
	c := byName["[.] die"]
	if c.Callers == nil || c.Callers.Name != "die" || len(c.Callers.Children) != 1 || c.Callers.Children[0].Name != "main" ||
		c.Callers.Children[0].Children[0].Name != "__libc_start_call_main" {
		t.Errorf("die's callers: %+v", c.Callers)
	}
	m := byName["[.] main"]
	if m.Callees == nil || m.Callees.Period != 4000 || len(m.Callees.Children) != 1 || m.Callees.Children[0].Name != "die" {
		t.Errorf("main's callees: %+v", m.Callees)
	}
	// --percent-limit drops the rows under the limit.
	rl, _ := Aggregate(p, 0, Options{PercentLimit: 50})
	if len(rl.Entries) != 1 || rl.Entries[0].Values[2] != "[.] main" {
		t.Errorf("percent-limit 50: %v", rows(rl, false))
	}
}

func rows(r *Report, children bool) []string {
	var out []string
	for _, e := range r.Entries {
		s := fmt.Sprintf("%.2f%% %s", r.Percent(e.Self), strings.Join(e.Values, " "))
		if children {
			s = fmt.Sprintf("%.2f%% %s", r.Percent(e.Children), s)
		}
		out = append(out, s)
	}
	return out
}

func compilePIE(t *testing.T) string {
	need(t, "cc", "nm", "addr2line")
	p := filepath.Join(t.TempDir(), "prog")
	src, err := filepath.Abs("../symbol/testdata/prog.c")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cc", "-g", "-O1", "-fPIE", "-pie", "-o", p, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return p
}

func TestPIESamplesGetSymbolsAndLines(t *testing.T) {
	bin := compilePIE(t)
	const base = 0x555555554000
	leaf, middle := nmAddr(t, bin, "leaf"), nmAddr(t, bin, "middle")
	b := NewBuilder(symbol.NewResolver(os.DirFS("/")))
	b.Comm(CommEvent{Pid: 5, Tid: 5, Comm: "prog"})
	b.Mmap(textMmap(t, 5, bin, base))
	// A child process forked after the mmap samples in the same code.
	b.Fork(ForkEvent{Pid: 6, PPid: 5, Tid: 6, PTid: 5})
	b.Sample(SampleEvent{Pid: 6, Tid: 6, IP: base + leaf + 4, Period: 1})
	b.Comm(CommEvent{Pid: 6, Tid: 6, Comm: "child", Exec: false})
	b.Sample(SampleEvent{Pid: 6, Tid: 6, IP: base + middle + 1, Period: 1})
	p := b.Profile()
	l0, l1 := p.Samples[0].Stack[0], p.Samples[1].Stack[0]
	if l0.Sym.Name != "leaf" || l0.Rel != leaf+4 || l1.Sym.Name != "middle" {
		t.Fatalf("symbols %s@%#x %s", l0.Sym.Name, l0.Rel, l1.Sym.Name)
	}
	if p.Samples[0].Thread.Comm != "prog" || p.Samples[1].Thread.Comm != "child" {
		t.Errorf("comms %s %s, want prog (inherited) then child", p.Samples[0].Thread.Comm, p.Samples[1].Thread.Comm)
	}
	out, err := exec.Command("addr2line", "-e", bin, fmt.Sprintf("%#x", leaf+4), fmt.Sprintf("%#x", middle+1)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(out))
	for i, l := range []*Location{l0, l1} {
		w, _, _ := strings.Cut(want[i], " ")
		if got := fmt.Sprintf("%s:%d", l.File, l.Line); got != w {
			t.Errorf("sample %d: %s, addr2line %s", i, got, w)
		}
	}
	if l0.Sym.File != l0.File || l0.Sym.Line == 0 {
		t.Errorf("leaf's own position %s:%d", l0.Sym.File, l0.Sym.Line)
	}
}

func TestKernelSamples(t *testing.T) {
	k, err := symbol.ParseKallsyms([]byte("ffffffff81000000 T _stext\nffffffff810a1b00 T do_syscall_64\nffffffff810a1c00 T next\nffffffffc0a01000 t e1000_clean\t[e1000]\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(&symbol.Resolver{Kernel: k})
	b.Comm(CommEvent{Pid: 9, Tid: 9, Comm: "w"})
	b.Mmap(MmapEvent{Pid: -1, Start: 0xffffffff81000000, Len: 0x1000000, Pgoff: 0xffffffff81000000, Filename: "[kernel.kallsyms]_text"})
	b.Sample(SampleEvent{Pid: 9, Tid: 9, IP: 0xffffffff810a1b10, Kernel: true, Period: 3})
	b.Sample(SampleEvent{Pid: 9, Tid: 9, IP: 0xffffffffc0a01010, Kernel: true, Period: 1})
	// A kernel-mode sample at an address neither the kernel's mapping nor its symbols
	// cover: perf's [unknown] [k].
	b.Sample(SampleEvent{Pid: 9, Tid: 9, IP: 0x7f1671bcf6c1, Kernel: true, Period: 4})
	p := b.Profile()
	r, _ := Aggregate(p, 0, Options{})
	got := strings.Join(rows(r, false), "\n")
	want := "50.00% w [unknown] [k] 0x00007f1671bcf6c1\n37.50% w [kernel.kallsyms] [k] do_syscall_64\n12.50% w [e1000] [k] e1000_clean"
	if got != want {
		t.Errorf("kernel report:\n%s\nwant\n%s", got, want)
	}
	// Without kallsyms: addresses, said once.
	b = NewBuilder(nil)
	b.Sample(SampleEvent{Pid: 9, Tid: 9, IP: 0xffffffff810a1b10, Kernel: true, Period: 1})
	b.Sample(SampleEvent{Pid: 9, Tid: 9, IP: 0xffffffff810a1b20, Kernel: true, Period: 1})
	p = b.Profile()
	if len(p.Warnings) != 1 || p.Samples[0].Stack[0].Sym.Name != "0xffffffff810a1b10" {
		t.Errorf("warnings %v, symbol %s", p.Warnings, p.Samples[0].Stack[0].Sym.Name)
	}
	if p.Samples[0].Thread.Comm != ":9" {
		t.Errorf("unnamed thread's comm %q", p.Samples[0].Thread.Comm)
	}
}

func TestBadSortKey(t *testing.T) {
	_, err := Aggregate(NewBuilder(nil).Profile(), 0, Options{Sort: []string{"comm", "symbol"}})
	if err == nil || !strings.Contains(err.Error(), "comm,pid,tid,dso,sym,srcline,cpu") {
		t.Errorf("error %v", err)
	}
}

// A profile reported on a machine without the binary: the archive written from the first
// Builder's profile names the same symbols and lines.
func TestArchiveRoundTrip(t *testing.T) {
	bin := compilePIE(t)
	const base = 0x7f0000000000
	leaf := nmAddr(t, bin, "leaf")
	feed := func(b *Builder) *Profile {
		b.Comm(CommEvent{Pid: 5, Tid: 5, Comm: "prog"})
		b.Mmap(textMmap(t, 5, bin, base))
		b.Sample(SampleEvent{Pid: 5, Tid: 5, IP: base + leaf + 4, Period: 1})
		return b.Profile()
	}
	here := feed(NewBuilder(symbol.NewResolver(os.DirFS("/"))))
	tables := here.SampledTables()
	if len(tables) != 1 {
		t.Fatalf("%d sampled tables", len(tables))
	}
	var buf strings.Builder
	if err := symbol.WriteArchive(&buf, tables); err != nil {
		t.Fatal(err)
	}
	a, err := symbol.OpenArchive(strings.NewReader(buf.String()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := feed(NewBuilder(&symbol.Resolver{FS: os.DirFS(t.TempDir()), Archive: a}))
	l0, l1 := here.Samples[0].Stack[0], elsewhere.Samples[0].Stack[0]
	if l1.Sym.Name != "leaf" || l1.File != l0.File || l1.Line != l0.Line || l1.DSO.Table.Source != "archive" {
		t.Errorf("from the archive %s %s:%d (%s), from the binary %s %s:%d", l1.Sym.Name, l1.File, l1.Line, l1.DSO.Table.Source, l0.Sym.Name, l0.File, l0.Line)
	}
}

package proffmt

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/pmc-tools/pmc/internal/browsertest"
	"github.com/pmc-tools/pmc/internal/golden"
	pmcprof "github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
)

func nmAddrs(t *testing.T, bin string) map[string]uint64 {
	t.Helper()
	out, err := exec.Command("nm", "--defined-only", bin).Output()
	if err != nil {
		t.Skipf("nm: %v", err)
	}
	m := map[string]uint64{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			a, _ := strconv.ParseUint(f[0], 16, 64)
			m[f[2]] = a
		}
	}
	return m
}

func textMmap(t *testing.T, pid int, bin string, base uint64) pmcprof.MmapEvent {
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
			return pmcprof.MmapEvent{Pid: pid, Tid: pid, Start: start, Len: end - start, Pgoff: p.Off &^ 0xfff, Filename: bin}
		}
	}
	t.Fatal("no executable segment")
	return pmcprof.MmapEvent{}
}

const ctxUser = ^uint64(512 - 1)

// fixture: the loop workload (static) with 6 samples in main, 3 in die called from main,
// 1 at an unmapped address, all called from __libc_start_call_main; period 250000 each
// (cpu-clock at 4 kHz).
func fixture(t *testing.T) *pmcprof.Profile {
	t.Helper()
	bin := testenv.Workload(t, "loop")
	a := nmAddrs(t, bin)
	b := pmcprof.NewBuilder(symbol.NewResolver(os.DirFS("/")))
	b.Event(1, "cpu-clock:u")
	b.Comm(pmcprof.CommEvent{Pid: 100, Tid: 100, Comm: "loop"})
	b.Mmap(textMmap(t, 100, bin, 0))
	start := a["__libc_start_call_main"] + 0x20
	for i := 0; i < 6; i++ {
		b.Sample(pmcprof.SampleEvent{Pid: 100, Tid: 100, IP: a["main"] + 8, Period: 250000, EventID: 1,
			Callchain: []uint64{ctxUser, a["main"] + 8, start}})
	}
	for i := 0; i < 3; i++ {
		b.Sample(pmcprof.SampleEvent{Pid: 100, Tid: 100, IP: a["die"] + 4, Period: 250000, EventID: 1,
			Callchain: []uint64{ctxUser, a["die"] + 4, a["main"] + 0x30, start}})
	}
	b.Sample(pmcprof.SampleEvent{Pid: 100, Tid: 100, IP: 0x1234, Period: 250000, EventID: 1,
		Callchain: []uint64{ctxUser, 0x1234, start}})
	return b.Profile()
}

func reports(t *testing.T, p *pmcprof.Profile, o pmcprof.Options) []*pmcprof.Report {
	t.Helper()
	rs, err := pmcprof.Reports(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestText(t *testing.T) {
	p := fixture(t)
	for _, c := range []struct {
		name string
		o    pmcprof.Options
	}{
		{"self", pmcprof.Options{}},
		{"children", pmcprof.Options{Children: true}},
		{"self-graph", pmcprof.Options{CallGraph: true}},
		{"children-graph", pmcprof.Options{Children: true, CallGraph: true}},
		{"percent-limit", pmcprof.Options{PercentLimit: 20}},
		{"sort-dso-sym", pmcprof.Options{Sort: []string{"dso", "sym"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, p, reports(t, p, c.o)); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", c.name+".txt"), b.Bytes())
		})
	}
}

func TestJSON(t *testing.T) {
	p := fixture(t)
	var b bytes.Buffer
	if err := JSON(&b, p, reports(t, p, pmcprof.Options{Children: true, CallGraph: true})); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string
		Events []struct {
			Name    string
			Samples uint64
			Period  uint64
			Entries []struct {
				Overhead         float64
				ChildrenOverhead float64 `json:"children_overhead"`
				Symbol, DSO      string
				Keys             map[string]string
				Resolved         bool
				Callees          *struct{ Name string }
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "pmc.report/v1" || len(doc.Events) != 1 || doc.Events[0].Samples != 10 || doc.Events[0].Period != 2500000 {
		t.Fatalf("document %+v", doc)
	}
	got := map[string][2]float64{}
	for _, e := range doc.Events[0].Entries {
		got[e.Keys["sym"]] = [2]float64{e.Overhead, e.ChildrenOverhead}
		if e.Keys["sym"] == "[.] main" && (e.Callees == nil || e.Callees.Name != "main" || !strings.HasSuffix(e.DSO, "/loop")) {
			t.Errorf("main: %+v", e)
		}
	}
	want := map[string][2]float64{"[.] main": {60, 90}, "[.] die": {30, 30}, "[.] 0x0000000000001234": {10, 10},
		"[.] __libc_start_call_main": {0, 100}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("overheads %v, want %v", got, want)
	}
}

func TestFolded(t *testing.T) {
	p := fixture(t)
	var b bytes.Buffer
	if err := Folded(&b, p, FoldedOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "loop;__libc_start_call_main;[unknown] 1\nloop;__libc_start_call_main;main 6\nloop;__libc_start_call_main;main;die 3\n"
	if b.String() != want {
		t.Errorf("folded:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	Folded(&b, p, FoldedOptions{Period: true})
	if !strings.Contains(b.String(), "loop;__libc_start_call_main;main 1500000\n") {
		t.Errorf("folded by period:\n%s", b.String())
	}
}

// progPIE builds symbol's test program as a PIE with DWARF.
func progPIE(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "cc")
	bin := filepath.Join(t.TempDir(), "prog")
	src, _ := filepath.Abs("../symbol/testdata/prog.c")
	if out, err := exec.Command("cc", "-g", "-O1", "-fPIE", "-pie", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return bin
}

// PIE with DWARF: the pprof file has functions with files and lines, and go tool pprof
// reads it.
func TestPprof(t *testing.T) {
	bin := progPIE(t)
	a := nmAddrs(t, bin)
	const base = 0x555555554000
	b := pmcprof.NewBuilder(symbol.NewResolver(os.DirFS("/")))
	b.Event(0, "cpu-clock:u")
	b.Comm(pmcprof.CommEvent{Pid: 5, Tid: 5, Comm: "prog"})
	b.Mmap(textMmap(t, 5, bin, base))
	for i := 0; i < 3; i++ {
		b.Sample(pmcprof.SampleEvent{Pid: 5, Tid: 5, Period: 1000, Callchain: []uint64{ctxUser, base + a["leaf"] + 4, base + a["middle"] + 5, base + a["main"] + 9}})
	}
	b.Sample(pmcprof.SampleEvent{Pid: 5, Tid: 5, Period: 1000, Callchain: []uint64{ctxUser, base + a["middle"] + 1, base + a["main"] + 9}})
	p := b.Profile()
	path := filepath.Join(t.TempDir(), "prof.pb.gz")
	var buf bytes.Buffer
	if err := Pprof(&buf, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte{0x1f, 0x8b}) {
		t.Error("not gzipped")
	}
	pp, err := profile.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.Sample) != 4 || pp.SampleType[1].Type != "cpu-clock:u" || pp.SampleType[1].Unit != "nanoseconds" {
		t.Fatalf("%d samples, types %v", len(pp.Sample), pp.SampleType)
	}
	leaf := pp.Sample[0].Location[0].Line[0]
	wantLine := p.Samples[0].Stack[0].Line
	if leaf.Function.Name != "leaf" || !strings.HasSuffix(leaf.Function.Filename, "testdata/prog.c") || leaf.Line != int64(wantLine) || wantLine == 0 {
		t.Errorf("leaf frame %s %s:%d, want leaf prog.c:%d", leaf.Function.Name, leaf.Function.Filename, leaf.Line, wantLine)
	}
	if pp.Sample[0].Label["comm"][0] != "prog" || pp.Mapping[0].File != bin {
		t.Errorf("labels %v mapping %s", pp.Sample[0].Label, pp.Mapping[0].File)
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	// flat: leaf 3000ns 75%, middle 1000ns 25%; cum of main 4000ns 100%.
	for _, re := range []string{`3us\s+75\.00%\s+75\.00%\s+3us\s+75\.00%\s+leaf`, `1us\s+25\.00%\s+100%\s+4us\s+100%\s+middle`, `0\s+0%\s+100%\s+4us\s+100%\s+main`} {
		if !regexp.MustCompile(re).Match(out) {
			t.Errorf("go tool pprof -top has no line matching %s:\n%s", re, out)
		}
	}
}

// TestPprofProfileOptions: every sampled event gets its own sample type (a sample's period
// under its event only, the first sampled event the default), and DSOAddresses puts each
// location at its address in the binary (nm's) inside a mapping spanning the binary's
// segments, the same for two processes loaded at different bases.
func TestPprofProfileOptions(t *testing.T) {
	bin := progPIE(t)
	a := nmAddrs(t, bin)
	b := pmcprof.NewBuilder(symbol.NewResolver(os.DirFS("/")))
	b.Event(1, "dummy")
	b.Event(2, "cpu-clock")
	b.Event(3, "page-faults")
	for pid, base := range map[int]uint64{5: 0x555555554000, 6: 0x5555aaaa0000} {
		b.Comm(pmcprof.CommEvent{Pid: pid, Tid: pid, Comm: "prog"})
		b.Mmap(textMmap(t, pid, bin, base))
		b.Sample(pmcprof.SampleEvent{EventID: 2, Pid: pid, Tid: pid, Period: 1000, Callchain: []uint64{ctxUser, base + a["leaf"] + 4, base + a["main"] + 9}})
		b.Sample(pmcprof.SampleEvent{EventID: 3, Pid: pid, Tid: pid, Period: 7, Callchain: []uint64{ctxUser, base + a["leaf"] + 4}})
	}
	pp, err := PprofProfile(b.Profile(), PprofOptions{DSOAddresses: true})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, st := range pp.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if got := strings.Join(types, " "); got != "samples/count cpu-clock/nanoseconds page-faults/count" || pp.DefaultSampleType != "cpu-clock" {
		t.Errorf("sample types %s, default %s", got, pp.DefaultSampleType)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var limit uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			limit = max(limit, p.Vaddr+p.Memsz)
		}
	}
	if len(pp.Mapping) != 1 || pp.Mapping[0].Start != 0 || pp.Mapping[0].Limit != limit {
		t.Errorf("mappings %+v, want one of [0, %#x)", pp.Mapping, limit)
	}
	var got []string
	for _, s := range pp.Sample {
		l := s.Location[0]
		got = append(got, fmt.Sprintf("%v %s+%#x", s.Value, l.Line[0].Function.Name, l.Address-a[l.Line[0].Function.Name]))
	}
	want := "[1 1000 0] leaf+0x4,[1 0 7] leaf+0x4,[1 1000 0] leaf+0x4,[1 0 7] leaf+0x4"
	if strings.Join(got, ",") != want {
		t.Errorf("samples %s\nwant    %s", strings.Join(got, ","), want)
	}
	if len(pp.Location) != 2 { // leaf+4 and main+9, shared by both processes
		t.Errorf("%d locations, want 2", len(pp.Location))
	}
}

func TestHTMLFlameGraphInChromium(t *testing.T) {
	browsertest.Browser(t)
	p := fixture(t)
	path := filepath.Join(t.TempDir(), "flame.html")
	var b bytes.Buffer
	if err := HTML(&b, p, 0, "pmc report: loop"); err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`(?i)(src|href)=["']?(https?:)?//`).Match(b.Bytes()) {
		t.Error("the page loads something from the network")
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browsertest.DumpDOM(t, path)
	frame := regexp.MustCompile(`<div class="frame[^"]*" data-name="([^"]*)" data-value="(\d+)" data-percent="([0-9.]+)"[^>]*? style="left: ([0-9.e-]+)%; width: ([0-9.e-]+)%;`)
	got := map[string]string{}
	for _, m := range frame.FindAllStringSubmatch(dom, -1) {
		w, _ := strconv.ParseFloat(m[5], 64)
		got[m[1]] = fmt.Sprintf("%s %s %.2f", m[2], m[3], w)
	}
	want := map[string]string{
		"all": "2500000 100.00 100.00", "loop": "2500000 100.00 100.00", "__libc_start_call_main": "2500000 100.00 100.00",
		"main": "2250000 90.00 90.00", "die": "750000 30.00 30.00", "[unknown]": "250000 10.00 10.00",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("frames in the rendered DOM:\n%v\nwant\n%v\n%s", got, want, dom)
	}
	// die sits on main: its left edge is inside main's span (the [unknown] frame comes first).
	left := regexp.MustCompile(`data-name="die"[^>]*style="left: ([0-9.e-]+)%`).FindStringSubmatch(dom)
	if l, _ := strconv.ParseFloat(left[1], 64); l < 10-1e-9 || l > 100-30+1e-9 {
		t.Errorf("die at left %v%%", l)
	}
}

// TestGraphThreshold: call-graph branches under 0.5% of the total are not drawn, as perf
// report's default -g graph,0.5 (pmc drew every branch: 111K lines where perf printed 2.9K
// on a deep recording): die at 4 of 1000 samples (0.40%) is hidden under main, at 5 (0.50%)
// it is drawn.
func TestGraphThreshold(t *testing.T) {
	bin := testenv.Workload(t, "loop")
	a := nmAddrs(t, bin)
	for _, c := range []struct {
		die  int
		want bool
	}{{4, false}, {5, true}} {
		b := pmcprof.NewBuilder(symbol.NewResolver(os.DirFS("/")))
		b.Event(1, "cpu-clock:u")
		b.Comm(pmcprof.CommEvent{Pid: 100, Tid: 100, Comm: "loop"})
		b.Mmap(textMmap(t, 100, bin, 0))
		start := a["__libc_start_call_main"] + 0x20
		for i := 0; i < 1000; i++ {
			chain := []uint64{ctxUser, a["main"] + 8, start}
			if i < c.die {
				chain = []uint64{ctxUser, a["die"] + 4, a["main"] + 0x30, start}
			}
			b.Sample(pmcprof.SampleEvent{Pid: 100, Tid: 100, IP: chain[1], Period: 1, EventID: 1, Callchain: chain})
		}
		p := b.Profile()
		var out bytes.Buffer
		if err := Text(&out, p, reports(t, p, pmcprof.Options{Children: true, CallGraph: true})); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), "%--die"); got != c.want {
			t.Errorf("die at %d of 1000 samples: drawn %v, want %v\n%s", c.die, got, c.want, out.String())
		}
	}
}

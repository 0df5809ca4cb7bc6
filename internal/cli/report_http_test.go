package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"html"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/browsertest"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestReportHTTPInChromium checks pmc report --http as a user would: the naive matrix
// product, built with line information, recorded by perf and by pmc (cpu-clock, call chains),
// served by pmc running with no objdump or addr2line on its PATH, every view loaded in
// headless Chromium, none writing to the console. The numbers are checked against perf
// report on the same file (flame graph widths, top's percentages, the source view's sample
// counts per line) and against pmc annotate (the hottest instruction's percentage).
func TestReportHTTPInChromium(t *testing.T) {
	browsertest.Browser(t)
	needPerf(t)
	exe := buildNaive(t)
	dir := t.TempDir()
	perfData := filepath.Join(dir, "perf.data")
	if out, err := exec.Command("perf", "record", "-q", "-g", "-e", "cpu-clock", "-o", perfData, "--", exe, "--size", "700").CombinedOutput(); err != nil {
		t.Fatalf("perf record: %v\n%s", err, out)
	}
	pmcData := filepath.Join(dir, "pmc.data")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "-g", "-e", "cpu-clock", "-o", pmcData, "--", exe, "--size", "700"}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc record: exit %d\n%s", code, stderr.String())
	}
	// The graph view with graphviz (when installed) on perf's recording, without on pmc's.
	t.Run("perf", func(t *testing.T) { checkWebViews(t, perfData, true) })
	t.Run("pmc", func(t *testing.T) { checkWebViews(t, pmcData, false) })
	t.Run("archive", func(t *testing.T) { checkWebArchive(t, exe) })
	t.Run("diff", func(t *testing.T) {
		ikj := filepath.Join(dir, "ikj.data")
		if code := testRun([]string{"record", "-g", "-e", "cpu-clock", "-o", ikj, "--", exe, "--order", "ikj", "--size", "700"}, &stdout, &stderr); code != 0 {
			t.Fatalf("pmc record: exit %d\n%s", code, stderr.String())
		}
		checkWebDiff(t, perfData, ikj)
	})
}

// buildNaive compiles workloads/src/matmul.c as a PIE with line information and frame
// pointers, naive() kept out of line, so the flame graph has naive under main.
func buildNaive(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "cc")
	root, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "workloads", "src")
	exe := filepath.Join(t.TempDir(), "matmul")
	args := []string{"-std=gnu11", "-O2", "-g", "-fno-omit-frame-pointer", "-fno-inline", "-I", src, "-o", exe, filepath.Join(src, "matmul.c")}
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %v: %v\n%s", args, err, out)
	}
	return exe
}

// webServer is a running pmc report --http.
type webServer struct {
	url    string
	start  string // what pmc said when it started
	hasDot bool
}

// serveWeb runs pmc with args (report --http...) with a PATH holding no binutils (graphviz's
// dot only, when installed and withDot) and returns its URL; the server is stopped with
// Ctrl-C at the end of the test and must exit 0.
func serveWeb(t *testing.T, withDot bool, args ...string) *webServer {
	t.Helper()
	bin := t.TempDir()
	s := &webServer{}
	dot := ""
	if withDot {
		dot = testenv.HaveTool(t, "dot", "the graph view drawn by graphviz (the view without it is checked instead)")
	}
	if dot != "" {
		s.hasDot = true
		if err := os.Symlink(dot, filepath.Join(bin, "dot")); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"objdump", "addr2line", "nm"} {
		if p, err := lookPathIn(tool, bin); err == nil {
			t.Fatalf("%s is on the server's PATH: %s", tool, p)
		}
	}
	cmd := pmcCmd(t, args...)
	cmd.Env = append(cmd.Env, "PATH="+bin, "HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	r := bufio.NewReader(stderr)
	var said strings.Builder
	for s.url == "" {
		line, err := r.ReadString('\n')
		said.WriteString(line)
		if err != nil {
			cmd.Wait()
			t.Fatalf("pmc %v ended without serving:\n%s", args, said.String())
		}
		if m := regexp.MustCompile(`serving on (http://\S+/)`).FindStringSubmatch(line); m != nil {
			s.url = m[1]
		}
	}
	s.start = said.String()
	go func() {
		rest, _ := io.ReadAll(r)
		if len(rest) > 0 {
			t.Logf("%s", rest)
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		if err := <-exited; err != nil {
			t.Errorf("pmc %v after Ctrl-C: %v", args, err)
		}
	})
	return s
}

// lookPathIn finds an executable named name in the directories of path.
func lookPathIn(name, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// view loads one view in Chromium and fails on any console message (a script error, a
// resource that did not load).
func (s *webServer) view(t *testing.T, path string) string {
	t.Helper()
	resp, err := http.Get(s.url + path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", path, resp.Status, body)
	}
	p := browsertest.Load(t, s.url+path)
	if len(p.Console) > 0 {
		t.Errorf("%s wrote to the console:\n%s", path, strings.Join(p.Console, "\n"))
	}
	return p.DOM
}

func checkWebViews(t *testing.T, data string, withDot bool) {
	s := serveWeb(t, withDot, "report", "-i", data, "--http=127.0.0.1:0")
	perfPct := perfPercents(t, data)

	// Flame graph: naive's box directly under main's and inside it; each box's width is its
	// children (inclusive) share, perf report's Children column.
	boxes := flameBoxes(s.view(t, "flamegraph"))
	root, main, naive := boxes["root"], boxes["main"], boxes["naive"]
	if root == nil || main == nil || naive == nil {
		t.Fatalf("the flame graph has no root, main or naive box: %v", boxes)
	}
	if naive.top != main.top+main.height || naive.left < main.left || naive.left+naive.width > main.left+main.width+1e-3 {
		t.Errorf("naive's box %+v is not under main's %+v", *naive, *main)
	}
	for _, fn := range []string{"main", "naive"} {
		b := boxes[fn]
		got := 100 * (b.width + 1) / (root.width + 1) // pprof draws a box 1px narrower than its share
		if want := perfPct[fn].children; math.Abs(got-want) > 0.0051 {
			t.Errorf("flame graph: %s is %.3f%% wide, perf report's Children %.2f%%", fn, got, want)
		}
		t.Logf("flame graph: %s %.2f%% wide (perf report: %.2f%% children)", fn, got, perfPct[fn].children)
	}

	// Top: naive's flat and main's cumulative share, as perf report's Self and Children.
	top := webTopRows(s.view(t, "top"))
	if got, want := top["naive"].flat, perfPct["naive"].self; math.Abs(got-want) > 0.0051 {
		t.Errorf("top: naive flat %.2f%%, perf report's Self %.2f%%", got, want)
	}
	if got, want := top["main"].cum, perfPct["main"].children; math.Abs(got-want) > 0.0051 {
		t.Errorf("top: main cum %.2f%%, perf report's Children %.2f%%", got, want)
	}

	// Source: naive's lines with their sample counts (si=samples), perf report's per srcline.
	lines := sourceCounts(s.view(t, "source?f=naive&si=samples"))
	perfLines := perfSrclines(t, data, "matmul.c")
	if len(perfLines) == 0 {
		t.Fatal("perf report shows no samples on matmul.c's lines")
	}
	hot := 0
	for n, want := range perfLines {
		if n >= 16 && n <= 25 { // naive's lines
			if lines[n] != want {
				t.Errorf("source view: matmul.c:%d has %d samples, perf report %d", n, lines[n], want)
			}
			hot += want
		}
	}
	for n, got := range lines {
		if perfLines[n] != got {
			t.Errorf("source view: matmul.c:%d has %d samples, perf report %d", n, got, perfLines[n])
		}
	}
	if lines[21]+lines[22] == 0 || hot == 0 {
		t.Errorf("source view: the hot loop's lines 21 and 22 have no samples: %v", lines)
	}
	t.Logf("source view: samples per line of naive %v (perf report: %v)", lines, perfLines)

	// Disassembly: the hottest instruction's share of naive equals pmc annotate's.
	addr, text, pct := hottestInstruction(t, s.view(t, "disasm?f=naive&unit=ns"))
	ann := annotatePercents(t, data, "naive")
	a, ok := ann[addr]
	if !ok {
		t.Fatalf("pmc annotate has no instruction at %x", addr)
	}
	if math.Abs(pct-a.pct) > 0.0051 || a.text != text {
		t.Errorf("disassembly view: %x %q %.4f%% of naive; pmc annotate: %q %.2f%%", addr, text, pct, a.text, a.pct)
	}
	for other, o := range ann {
		if o.pct > a.pct {
			t.Errorf("pmc annotate's hottest instruction is %x (%.2f%%), the disassembly view's %x", other, o.pct, addr)
		}
	}
	t.Logf("disassembly view: hottest %x %s %.2f%% of naive; pmc annotate %.2f%%", addr, text, pct, a.pct)

	// Peek: naive's caller is main.
	peek := html.UnescapeString(s.view(t, "peek?f=naive"))
	if !strings.Contains(peek, "File: matmul\n") {
		t.Errorf("the views do not name matmul as the main binary:\n%s", peek)
	}
	if !regexp.MustCompile(`\|\s+main\s[^\n]*\n[^\n]*\|\s+naive\s`).MatchString(peek) {
		t.Errorf("peek does not show main calling naive:\n%s", peek)
	}

	// Graph: graphviz draws it, or pmc said at start that it needs graphviz and the view says so.
	if s.hasDot {
		if g := s.view(t, "graph"); !strings.Contains(g, "<svg") || !strings.Contains(g, "naive") {
			t.Errorf("the graph view has no SVG with naive")
		}
	} else {
		resp, err := http.Get(s.url + "graph")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotImplemented || !strings.Contains(string(body), "graphviz") || !strings.Contains(s.start, "graphviz") {
			t.Errorf("without dot: graph view %s %q; pmc said %q", resp.Status, body, s.start)
		}
	}
}

// box is a flame graph box as the page laid it out (pixels).
type box struct{ left, top, width, height float64 }

var boxRE = regexp.MustCompile(`<div class="boxbg[^"]*" style="left: ([0-9.]+)px; top: ([0-9.]+)px; width: ([0-9.]+)px; height: ([0-9.]+)px;[^"]*"><div class="boxtext">([^<]*)<`)

// flameBoxes are the named boxes of the rendered flame graph, by name (the first of each).
func flameBoxes(dom string) map[string]*box {
	out := map[string]*box{}
	for _, m := range boxRE.FindAllStringSubmatch(dom, -1) {
		f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
		if name := html.UnescapeString(m[5]); out[name] == nil {
			out[name] = &box{f(1), f(2), f(3), f(4)}
		}
	}
	return out
}

// webTopRow is one function's flat% and cum% in the top view.
type webTopRow struct{ flat, cum float64 }

var webTopRowRE = regexp.MustCompile(`<tr[^>]*><td>[^<]*</td><td>(-?[0-9.]+)%</td><td>[^<]*</td><td>[^<]*</td><td>(-?[0-9.]+)%</td><td>([^<]*)</td>`)

func webTopRows(dom string) map[string]webTopRow {
	out := map[string]webTopRow{}
	for _, m := range webTopRowRE.FindAllStringSubmatch(dom, -1) {
		flat, _ := strconv.ParseFloat(m[1], 64)
		cum, _ := strconv.ParseFloat(m[2], 64)
		out[html.UnescapeString(m[3])] = webTopRow{flat, cum}
	}
	return out
}

var sourceLineRE = regexp.MustCompile(`<span class="line">\s*(\d+)</span> <span class="livesrc">\s*(\S+)\s+(\S+)`)

// sourceCounts are the flat values of the source view's lines that have one.
func sourceCounts(dom string) map[int]int {
	out := map[int]int{}
	for _, m := range sourceLineRE.FindAllStringSubmatch(dom, -1) {
		if m[2] == "." {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		v, _ := strconv.Atoi(m[2])
		out[n] = v
	}
	return out
}

var (
	routineRE = regexp.MustCompile(`(?m)^\s*(\d+)ns\s+\S+ \(flat, cum\)`)
	instRE    = regexp.MustCompile(`(?m)^\s*(\S+)\s+\S+\s+([0-9a-f]+): (.*?)\s*(;.*)?$`)
)

// hottestInstruction is the instruction of the disassembly view (values in ns) with the most
// flat time, and its share of the routine's flat time.
func hottestInstruction(t *testing.T, dom string) (addr uint64, text string, pct float64) {
	t.Helper()
	pre := html.UnescapeString(regexp.MustCompile(`(?s)<pre[^>]*>(.*)</pre>`).FindStringSubmatch(dom)[1])
	m := routineRE.FindStringSubmatch(pre)
	if m == nil {
		t.Fatalf("no ROUTINE header in the disassembly view:\n%s", pre)
	}
	total, _ := strconv.ParseFloat(m[1], 64)
	var best float64
	for _, m := range instRE.FindAllStringSubmatch(pre, -1) {
		v, err := strconv.ParseFloat(strings.TrimSuffix(m[1], "ns"), 64)
		if err != nil || v <= best {
			continue
		}
		best = v
		addr, _ = strconv.ParseUint(m[2], 16, 64)
		text = strings.Join(strings.Fields(m[3]), " ")
	}
	if best == 0 || total == 0 {
		t.Fatalf("no instruction with samples in the disassembly view:\n%s", pre)
	}
	return addr, text, 100 * best / total
}

// annotated is one instruction as pmc annotate prints it.
type annotated struct {
	pct  float64
	text string
}

var annotateRE = regexp.MustCompile(`(?m)^[> ]\s*([0-9.]+) :\s+([0-9a-f]+): (.*?)\s*(<- .*)?$`)

// annotatePercents runs pmc annotate SYMBOL on data: each instruction's percentage.
func annotatePercents(t *testing.T, data, symbol string) map[uint64]annotated {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"annotate", "-i", data, "--stdio", "--no-source", symbol}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc annotate: exit %d\n%s", code, stderr.String())
	}
	out := map[uint64]annotated{}
	for _, m := range annotateRE.FindAllStringSubmatch(stdout.String(), -1) {
		a, _ := strconv.ParseUint(m[2], 16, 64)
		p, _ := strconv.ParseFloat(m[1], 64)
		out[a] = annotated{p, strings.Join(strings.Fields(m[3]), " ")}
	}
	if len(out) == 0 {
		t.Fatalf("no instructions in pmc annotate's output:\n%s", stdout.String())
	}
	return out
}

// share is a function's Children and Self percentages in perf report.
type share struct{ children, self float64 }

// perfPercents are perf report --children --sort sym's percentages per function.
func perfPercents(t *testing.T, data string) map[string]share {
	t.Helper()
	out, err := exec.Command("perf", "report", "-i", data, "--children", "--sort", "sym", "-g", "none", "--stdio", "-q").Output()
	if err != nil {
		t.Fatalf("perf report: %v", err)
	}
	re := regexp.MustCompile(`(?m)^\s*([0-9.]+)%\s+([0-9.]+)%\s+\[[.k]\] (\S+)`)
	shares := map[string]share{}
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		c, _ := strconv.ParseFloat(m[1], 64)
		s, _ := strconv.ParseFloat(m[2], 64)
		shares[m[3]] = share{c, s}
	}
	if _, ok := shares["naive"]; !ok {
		t.Fatalf("perf report has no naive:\n%s", out)
	}
	return shares
}

// perfSrclines are perf report's sample counts per line of the source file named base.
func perfSrclines(t *testing.T, data, base string) map[int]int {
	t.Helper()
	out, err := exec.Command("perf", "report", "-i", data, "--no-children", "-n", "--sort", "srcline", "-g", "none", "--stdio", "-q").Output()
	if err != nil {
		t.Fatalf("perf report --sort srcline: %v", err)
	}
	re := regexp.MustCompile(`(?m)^\s*[0-9.]+%\s+(\d+)\s+` + regexp.QuoteMeta(base) + `:(\d+)\s*$`)
	lines := map[int]int{}
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[1])
		lines[n] += c
	}
	return lines
}

// checkWebDiff: pmc diff --http BASE NEW (perf's recording of the naive product against
// pmc's of the interchanged one): each function's flat percentage in the top view is its
// share in NEW minus its share in BASE, pmc diff's Delta Abs (--json), absent functions
// counting 0.
func checkWebDiff(t *testing.T, base, cur string) {
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"diff", "--json", base, cur}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc diff: exit %d\n%s", code, stderr.String())
	}
	var d struct {
		Rows []struct {
			Symbol string
			Cells  []*struct{ Percent float64 }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, r := range d.Rows {
		for i, c := range r.Cells {
			if c != nil {
				want[r.Symbol] += float64(2*i-1) * c.Percent // NEW's share minus BASE's
			}
		}
	}
	s := serveWeb(t, false, "diff", "--http", base, cur)
	top := webTopRows(s.view(t, "top"))
	for _, fn := range []string{"naive", "interchange", "main"} {
		// A row missing from the page fails; a zero difference is a value (main's flat share
		// can be the same in both recordings: make test-stress saw -0.00% in both views).
		row, ok := top[fn]
		if got := row.flat; !ok || math.Abs(got-want[fn]) > 0.0051 {
			t.Errorf("diff top: %s flat %.2f%% (in the view: %v), pmc diff: %.2f%%", fn, got, ok, want[fn])
		}
		t.Logf("diff top: %s %+.2f%% (pmc diff: %+.2f%%)", fn, top[fn].flat, want[fn])
	}
}

// TestReportHTTPRefuses: --http's mistakes get one line naming the fix and exit 1 before
// anything is served: an address given as a separate word, an export beside it, a port in
// use (before the file is read), a recording without samples, a diff of one file.
func TestReportHTTPRefuses(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	empty := filepath.Join(t.TempDir(), "empty.data")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "-e", "cpu-clock", "-c", "1000000000000", "-o", empty, "--", "true"}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc record: %d %s", code, stderr.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "-i", empty, "--http", "8080"}, `pmc report takes no argument "8080": write --http=8080`},
		{[]string{"report", "-i", empty, "--http", "--json"}, "--http serves the recording: leave out --json"},
		{[]string{"report", "-i", "no-such.data", "--http=" + busy.Addr().String()}, "address already in use"},
		{[]string{"report", "-i", empty, "--http"}, "the file has no samples: record again with a longer workload"},
		{[]string{"report", "-i", empty, "--http=a:b:c"}, "--http a:b:c: give HOST:PORT, :PORT or PORT"},
		{[]string{"report", "-i", empty, "--http", "-e", "cycles"}, `no event "cycles" in the file: use one of cpu-clock`},
		{[]string{"diff", "--http", empty}, "--http shows one difference: give BASELINE NEW"},
	} {
		stdout.Reset()
		stderr.Reset()
		code := testRun(c.args, &stdout, &stderr)
		if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); code != 1 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("pmc %v: exit %d, stderr %q; want one line with %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// checkWebArchive: a recording made with --embed-symbols is served after its binary is gone,
// its symbols and the sampled functions' code from FILE.pmcsym: the flame graph still has
// naive under main, and the disassembly view's hottest instruction has the share pmc
// annotate gives it from the same archive.
func checkWebArchive(t *testing.T, exe string) {
	dir := t.TempDir()
	moved := filepath.Join(dir, "matmul")
	if out, err := exec.Command("cp", exe, moved).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	data := filepath.Join(dir, "embed.data")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "-g", "--embed-symbols", "-e", "cpu-clock", "-o", data, "--", moved, "--size", "500"}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc record: exit %d\n%s", code, stderr.String())
	}
	if err := os.Remove(moved); err != nil {
		t.Fatal(err)
	}
	s := serveWeb(t, false, "report", "-i", data, "--http")
	boxes := flameBoxes(s.view(t, "flamegraph"))
	if main, naive := boxes["main"], boxes["naive"]; main == nil || naive == nil || naive.top != main.top+main.height {
		t.Errorf("without the binary, the flame graph has no naive under main: %v", boxes)
	}
	addr, text, pct := hottestInstruction(t, s.view(t, "disasm?f=naive&unit=ns"))
	ann := annotatePercents(t, data, "naive")
	if a := ann[addr]; math.Abs(pct-a.pct) > 0.0051 || a.text != text {
		t.Errorf("from the archive: disassembly view %x %q %.4f%%; pmc annotate %q %.2f%%", addr, text, pct, a.text, a.pct)
	}
	t.Logf("from the archive: hottest %x %s %.2f%% of naive; pmc annotate %.2f%%", addr, text, pct, ann[addr].pct)
}

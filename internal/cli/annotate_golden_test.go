package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
)

// annotateDir holds perf.data files perf 6.1 recorded on the project's x86_64 VM of the
// array2d workload built as two differently named executables (make.sh there rebuilds and
// re-records them, README.md gives the commands), the binaries under symfs/ at the path the
// recordings name, each file's symbol archive (kernel and libc symbols) and perf's outputs.
const annotateDir = "testdata/annotate"

// perfTool runs perf (annotate or diff) on the recording machine to (re)write a golden.
func perfTool(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("perf", args...)
	cmd.Dir = annotateDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf %v: %v: %s", args, err, stderr.String())
	}
	return string(out)
}

// perfGolden returns perf's output kept in NAME, rewriting it first with -update-perf.
func perfGolden(t *testing.T, name string, args ...string) string {
	t.Helper()
	p := filepath.Join(annotateDir, name)
	if golden.UpdatingPerf() {
		golden.Write(t, p, []byte(perfTool(t, args...)))
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update-perf runs perf to write it)", err)
	}
	return string(b)
}

// pmcOut runs pmc and fails on a non-zero exit or anything on stderr.
func pmcOut(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := testRun(args, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("pmc %v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}

var annotateRow = regexp.MustCompile(`^[ >]\s*([0-9]+\.[0-9]+) :\s+([0-9a-f]+):`)

// annotateRows maps each instruction address to its percentage as printed.
func annotateRows(text string) map[string]string {
	rows := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if m := annotateRow.FindStringSubmatch(l); m != nil {
			rows[m[2]] = m[1]
		}
	}
	return rows
}

var annotateInst = regexp.MustCompile(`^[ >]\s*[0-9]+\.[0-9]+ :\s+([0-9a-f]+):\s+(.*)$`)

// annotateInsts maps each instruction address to its text, blanks squeezed.
func annotateInsts(text string) map[string]string {
	insts := map[string]string{}
	for _, l := range strings.Split(text, "\n") {
		if m := annotateInst.FindStringSubmatch(l); m != nil {
			text, _, _ := strings.Cut(m[2], "<- ") // pmc's skid mark is its own
			insts[m[1]] = strings.Join(strings.Fields(text), " ")
		}
	}
	return insts
}

func updateAnnotateArchives(t *testing.T) {
	if golden.UpdatingPerf() {
		for _, f := range []string{"col.data", "row.data", "colg.data", "rowg.data"} {
			writeTestArchive(t, filepath.Join(annotateDir, f))
		}
	}
}

// TestAnnotateAgreesWithPerf: every instruction's percentage and text equal perf annotate's
// for the same symbol (perf ran objdump, pmc its own decoder), and the source lines appear.
func TestAnnotateAgreesWithPerf(t *testing.T) {
	updateAnnotateArchives(t)
	for _, c := range []struct {
		file, sym, src string
		perfArgs       []string
	}{
		{"col.data", "assign", "a[i * cols + j] = (long)(i + j);", nil},
		{"col.data", "squares", "a[i * cols + j] = a[i * cols + j] * a[i * cols + j];", nil},
		{"col.data", "main", "sum += (uint64_t)a[i];", nil},
		{"row.data", "assign", "a[i * cols + j] = (long)(i + j);", nil},
		{"row.data", "squares", "a[i * cols + j] = a[i * cols + j] * a[i * cols + j];", nil},
		// With call chains: a sample counts where it hit, its callers are not read.
		{"colg.data", "squares", "a[i * cols + j] = a[i * cols + j] * a[i * cols + j];", []string{"--symfs", "symfs"}},
	} {
		t.Run(strings.TrimSuffix(c.file, ".data")+"-"+c.sym, func(t *testing.T) {
			name := "perf-annotate-" + strings.TrimSuffix(c.file, ".data") + "-" + c.sym + ".txt"
			want := perfGolden(t, name, append([]string{"annotate", "--stdio", "-i", c.file, "--symbol=" + c.sym}, c.perfArgs...)...)
			got := pmcOut(t, "annotate", "--symfs", filepath.Join(annotateDir, "symfs"), "--source-dir", "../../workloads/src",
				"-i", filepath.Join(annotateDir, c.file), c.sym)
			wr, gr := annotateRows(want), annotateRows(got)
			if len(wr) < 10 {
				t.Fatalf("perf's annotation has %d instructions:\n%s", len(wr), want)
			}
			for a, p := range wr {
				if gr[a] != p {
					t.Errorf("%s at %s: pmc %q, perf %q", c.sym, a, gr[a], p)
				}
			}
			if len(gr) != len(wr) {
				t.Errorf("pmc shows %d instructions, perf %d", len(gr), len(wr))
			}
			// Each instruction as perf's objdump wrote it: operands, labels, comments.
			wi, gi := annotateInsts(want), annotateInsts(got)
			for a, w := range wi {
				if gi[a] != w {
					t.Errorf("%s at %s: pmc %q, perf %q", c.sym, a, gi[a], w)
				}
			}
			if !strings.Contains(got, c.src) {
				t.Errorf("no source line in pmc's annotation:\n%s", got)
			}
			golden.Check(t, filepath.Join(annotateDir, "pmc-annotate-"+strings.TrimPrefix(name, "perf-annotate-")), []byte(got))
		})
	}
}

// diffRows are the rows of a perf diff table, blanks squeezed.
func diffRows(text string) []string {
	var rows []string
	for _, l := range strings.Split(text, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	return rows
}

// values are the rows without their symbols: the Baseline and change columns.
func values(rows []string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[:strings.Index(r, "[")])
	}
	return out
}

// TestDiffAgreesWithPerf: pmc diff's Baseline and Delta Abs (and delta, ratio, wdiff) equal
// perf diff's, row for row in perf's order, for perf's own matchings; pmc's default matching lines the two
// differently named executables up by symbol, which perf's default does not.
func TestDiffAgreesWithPerf(t *testing.T) {
	updateAnnotateArchives(t)
	col, row := filepath.Join(annotateDir, "col.data"), filepath.Join(annotateDir, "row.data")
	symfs := filepath.Join(annotateDir, "symfs")
	perfDefault := perfGolden(t, "perf-diff.txt", "diff", "col.data", "row.data")
	perfSym := perfGolden(t, "perf-diff-symbol.txt", "diff", "--sort", "symbol", "col.data", "row.data")
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"dso,sym", perfDefault, []string{"--sort", "dso,sym"}},
		{"sym", perfSym, []string{"--sort", "sym"}},
		{"dso,sym -c delta", perfGolden(t, "perf-diff-delta.txt", "diff", "-c", "delta", "col.data", "row.data"), []string{"--sort", "dso,sym", "-c", "delta"}},
		{"dso,sym -c ratio", perfGolden(t, "perf-diff-ratio.txt", "diff", "-c", "ratio", "col.data", "row.data"), []string{"--sort", "dso,sym", "-c", "ratio"}},
		{"dso,sym -c wdiff:3,1", perfGolden(t, "perf-diff-wdiff.txt", "diff", "-c", "wdiff:3,1", "col.data", "row.data"), []string{"--sort", "dso,sym", "-c", "wdiff:3,1"}},
	} {
		got := pmcOut(t, append(append([]string{"diff", "--symfs", symfs}, c.args...), col, row)...)
		w, g := diffRows(c.want), diffRows(got)
		if len(w) < 10 || strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Errorf("--sort %s: rows differ from perf diff's:\n%s", c.name, golden.Diff(strings.Join(w, "\n"), strings.Join(g, "\n")))
		}
	}
	// The default: perf's --sort symbol values, with the Shared Object column.
	got := pmcOut(t, "diff", "--symfs", symfs, col, row)
	golden.Check(t, filepath.Join(annotateDir, "pmc-diff.txt"), []byte(got))
	if !strings.Contains(got, "# Main programs (array2d-col, array2d-row) matched by symbol name") {
		t.Errorf("the header does not say how rows were matched:\n%s", got)
	}
	// Equal rows; the order of rows of equal values differs (pmc orders ties by shared object
	// first), so the rows are compared as sets and the value columns in order.
	var g []string
	for _, r := range diffRows(got) {
		f := strings.Fields(r)
		g = append(g, strings.Join(append(f[:len(f)-3:len(f)-3], f[len(f)-2:]...), " ")) // drop Shared Object
	}
	w := diffRows(perfSym)
	if strings.Join(values(w), "\n") != strings.Join(values(g), "\n") {
		t.Errorf("default matching: values differ from perf diff --sort symbol's:\n%s", golden.Diff(strings.Join(values(w), "\n"), strings.Join(values(g), "\n")))
	}
	slices.Sort(w)
	slices.Sort(g)
	if strings.Join(w, "\n") != strings.Join(g, "\n") {
		t.Errorf("default matching differs from perf diff --sort symbol:\n%s", golden.Diff(strings.Join(w, "\n"), strings.Join(g, "\n")))
	}
	// perf's default keeps array2d-col's assign and array2d-row's apart: one row with a
	// baseline only, one with a delta only. pmc's default has one row with both.
	for _, r := range diffRows(perfDefault) {
		if strings.HasSuffix(r, "[.] assign") && strings.Count(r, "%") != 1 {
			t.Errorf("perf diff's default matched assign across the executables after all: %q", r)
		}
	}
	found := false
	for _, r := range diffRows(got) {
		found = found || strings.HasSuffix(r, "array2d-row [.] assign") && strings.Count(r, "%") == 2
	}
	if !found {
		t.Errorf("pmc diff has no assign row with baseline and delta:\n%s", got)
	}
}

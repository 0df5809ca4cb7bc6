package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// pmcFails runs pmc expecting exit status 1 and a one-line error containing want.
func pmcFails(t *testing.T, want string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := testRun(args, &stdout, &stderr)
	msg := stderr.String()
	if code != 1 || !strings.Contains(msg, want) || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
		t.Errorf("pmc %v: exit %d, stderr %q; want exit 1 and one line with %q", args, code, msg, want)
	}
}

func TestAnnotateErrors(t *testing.T) {
	col := filepath.Join(annotateDir, "col.data")
	symfs := filepath.Join(annotateDir, "symfs")
	pmcFails(t, `no sampled function "asign" (did you mean: assign?)`, "annotate", "-i", col, "--symfs", symfs, "asign")
	pmcFails(t, `no sampled function "zzz": the hottest are squares, assign, `, "annotate", "-i", col, "--symfs", symfs, "zzz")
	// The binary is gone: the archive has symbols but no code.
	pmcFails(t, "/tmp/pmc-annotate/array2d-col: no such file or directory, and the symbol archive keeps no code of assign",
		"annotate", "-i", col, "--symfs", t.TempDir(), "assign")
	// The binary was rebuilt: another ELF file at the recorded path.
	changed := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(changed, "tmp", "pmc-annotate")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "array2d-col"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	pmcFails(t, "/tmp/pmc-annotate/array2d-col changed since the recording (build-id ", "annotate", "-i", col, "--symfs", changed, "assign")
	pmcFails(t, "--source and --no-source: choose one", "annotate", "-i", col, "--source", "--no-source")
	pmcFails(t, "no such file", "annotate", "-i", filepath.Join(t.TempDir(), "none.data"))
	pmcFails(t, `no event "cycles" in the file: use one of cpu-clock`, "annotate", "-i", col, "--symfs", symfs, "-e", "cycles")
	pmcFails(t, "give the baseline and at least one new file", "diff", col)
	pmcFails(t, `--compute "foo": use delta-abs, delta, ratio or wdiff:W1,W2`, "diff", "--compute", "foo", col, col)
	pmcFails(t, `--compute "wdiff:1": give the weights as wdiff:W1,W2`, "diff", "--compute", "wdiff:1", col, col)
	pmcFails(t, `--sort "comm": use sym or dso,sym`, "diff", "--sort", "comm", col, col)
	pmcFails(t, "has no call chains: record it with -g", "diff", "-g", col, col)
}

// TestAnnotateHottest: without SYMBOL the hottest functions come in turn; kernel functions
// are skipped with one line saying why; no file stays open.
func TestAnnotateHottest(t *testing.T) {
	defer testenv.CheckFDs(t)
	var stdout, stderr bytes.Buffer
	args := []string{"annotate", "-i", filepath.Join(annotateDir, "col.data"), "--symfs", filepath.Join(annotateDir, "symfs"), "--no-source"}
	if code := testRun(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var order []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "         :\t0000") {
			order = append(order, l[strings.Index(l, "<"):])
		}
	}
	if strings.Join(order, " ") != "<squares>: <assign>: <main>:" {
		t.Errorf("annotated %v, want squares, assign, main (hottest first)", order)
	}
	if strings.Contains(stdout.String(), "array2d.c") {
		t.Errorf("--no-source shows source lines")
	}
	if !strings.Contains(stderr.String(), "not annotated: no code bytes for kernel functions") {
		t.Errorf("stderr %q does not say why kernel functions are skipped", stderr.String())
	}
	// JSON: an array of pmc.annotate/v1 documents.
	stdout.Reset()
	if code := testRun(append(args, "--json"), &stdout, &bytes.Buffer{}); code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	var docs []struct {
		Schema, Symbol string
		Samples        uint64
	}
	if err := json.Unmarshal(stdout.Bytes(), &docs); err != nil || len(docs) != 3 || docs[0].Schema != "pmc.annotate/v1" || docs[0].Samples != 428 {
		t.Errorf("--json: %v, %+v", err, docs)
	}
}

// TestDiffSeveralAndChildren: several NEW files side by side (each against the baseline),
// JSON with the same numbers, and the children table from call-chain recordings.
func TestDiffSeveralAndChildren(t *testing.T) {
	col, row := filepath.Join(annotateDir, "col.data"), filepath.Join(annotateDir, "row.data")
	symfs := filepath.Join(annotateDir, "symfs")
	text := pmcOut(t, "diff", "--symfs", symfs, col, row, col)
	if !strings.Contains(text, "Delta Abs [1]  Delta Abs [2]") {
		t.Errorf("no side-by-side columns:\n%s", text)
	}
	// The baseline against itself: no change, so the [2] column is blank on every row.
	for _, r := range diffRows(text) {
		if f := strings.Fields(r); strings.HasSuffix(r, "[.] assign") && strings.Join(f[:3], " ") != "34.13% -22.47% array2d-col" {
			t.Errorf("assign row %q", r)
		}
	}
	var d struct {
		Schema string
		Match  string
		Files  []struct {
			File         string
			Samples      uint64
			MainPrograms []string `json:"main_programs"`
		}
		Rows []struct {
			Symbol string
			Cells  []*struct {
				Percent float64
				Delta   *float64
			}
		}
	}
	if err := json.Unmarshal([]byte(pmcOut(t, "diff", "--json", "--symfs", symfs, col, row)), &d); err != nil {
		t.Fatal(err)
	}
	if d.Schema != "pmc.diff/v1" || d.Match != "main" || len(d.Files) != 2 || d.Files[1].MainPrograms[0] != "array2d-row" || len(d.Rows) < 10 {
		t.Fatalf("JSON: %+v", d)
	}
	if r := d.Rows[0]; r.Symbol != "squares" || r.Cells[1].Delta == nil || fmt.Sprintf("%.2f", *r.Cells[1].Delta) != "-25.17" {
		t.Errorf("first row %+v, want squares with delta -25.17 as the text says", r)
	}
	g := pmcOut(t, "diff", "--symfs", symfs, filepath.Join(annotateDir, "colg.data"), filepath.Join(annotateDir, "rowg.data"))
	_, children, ok := strings.Cut(g, "# Children (inclusive")
	if !ok || !strings.Contains(children, "[.] squares") {
		t.Fatalf("no children table:\n%s", g)
	}
}

// TestAnnotateFromArchive: with the code pmc record --embed-symbols keeps in FILE.pmcsym,
// a recording is annotated where its binary is gone or was rebuilt, with the same
// percentages perf gave where the binary was.
func TestAnnotateFromArchive(t *testing.T) {
	symfs := filepath.Join(annotateDir, "symfs")
	r, err := driver.Load(driver.Options{Path: filepath.Join(annotateDir, "col.data"), Symfs: symfs, Lines: true})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Profile
	dir := t.TempDir()
	file := filepath.Join(dir, "col.data")
	data, err := os.ReadFile(filepath.Join(annotateDir, "col.data"))
	if err != nil {
		t.Fatal(err)
	}
	var arch bytes.Buffer
	if err := symbol.WriteArchive(&arch, driver.KeepCode(p, sampledTables(p, false), symfs)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(symbol.ArchivePath(file), arch.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	perf, err := os.ReadFile(filepath.Join(annotateDir, "perf-annotate-col-squares.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := annotateRows(string(perf))
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"annotate", "-i", file, "--symfs", t.TempDir(), "squares"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := annotateRows(stdout.String()); len(want) < 10 || !maps.Equal(got, want) {
		t.Errorf("from the archive: %v, perf: %v", got, want)
	}
	if s := stderr.String(); s != "pmc annotate: /tmp/pmc-annotate/array2d-col: no such file or directory: its code comes from the symbol archive\n" {
		t.Errorf("stderr %q", s)
	}
	// Source lines come from the archive's line table too.
	if !strings.Contains(stdout.String(), "/tmp/pmc-annotate/src/array2d.c") {
		t.Errorf("no source positions:\n%s", stdout.String())
	}
}

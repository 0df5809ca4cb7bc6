package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"

	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
)

func runReportCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := testRun(append([]string{"report"}, args...), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

var topRow = regexp.MustCompile(`(?m)^ +([0-9.]+)% +(\S+) +(\S+) +\[[.k]\] (\S+)$`)

// A workload built into a temporary directory, recorded with --embed-symbols, then deleted
// or replaced by another program: pmc report still names its function, from the archive.
func TestReportEmbeddedSymbols(t *testing.T) {
	testenv.CheckFDs(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "spin")
	data, err := os.ReadFile(testenv.Workload(t, "loop"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "perf.data")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "--embed-symbols", "-e", "cpu-clock", "-F", "2000", "-o", out, "--", bin, "200000000"}, &stdout, &stderr); code != 0 {
		t.Skipf("pmc record exit %d (sampling not allowed here?): %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "symbols of ") {
		t.Fatalf("no archive summary: %s", stderr.String())
	}
	a, err := os.ReadFile(symbol.ArchivePath(out))
	if err != nil {
		t.Fatal(err)
	}
	arch, err := symbol.OpenArchive(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := arch.Table("", bin); !ok {
		t.Fatalf("the archive has no table for %s", bin)
	}
	check := func(what string, wantNamed bool) {
		t.Helper()
		rep, errs, code := runReportCmd(t, "--stdio", "-i", out, "--sort", "dso,sym")
		m := regexp.MustCompile(`(?m)^ +([0-9.]+)% +spin +\[\.\] (\S+)`).FindStringSubmatch(rep)
		if code != 0 || m == nil {
			t.Fatalf("%s: exit %d, no row of spin:\n%s%s", what, code, rep, errs)
		}
		if named := m[2] == "wl_spin"; named != wantNamed {
			t.Fatalf("%s: the top symbol of spin is %s:\n%s%s", what, m[2], rep, errs)
		}
		if !wantNamed && (!strings.Contains(errs, "no symbols for "+bin) || !strings.Contains(errs, "--embed-symbols")) {
			t.Fatalf("%s: no one-line note about the missing symbols: %q", what, errs)
		}
	}
	check("binary present", true)
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	check("binary deleted", true)
	other, err := os.ReadFile(testenv.Workload(t, "matmul"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, other, 0o755); err != nil {
		t.Fatal(err)
	}
	check("binary replaced", true)
	if err := os.Rename(symbol.ArchivePath(out), filepath.Join(dir, "saved")); err != nil {
		t.Fatal(err)
	}
	check("binary replaced, no archive", false)
}

// pmc report on pmc record's own recording of loop: top symbol wl_spin, and the same
// sample count and wl_spin share as perf report on the same file.
func TestReportOwnRecording(t *testing.T) {
	path, _ := recordLoop(t, "-g")
	rep, errs, code := runReportCmd(t, "-i", path, "--no-children", "--sort", "sym", "-g=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	top := regexp.MustCompile(`(?m)^ +([0-9.]+)% +\[\.\] (\S+)\s*$`).FindStringSubmatch(rep)
	samples := regexp.MustCompile(`# Samples: (\S+) +of event 'cpu-clock'`).FindStringSubmatch(rep)
	if top == nil || top[2] != "wl_spin" || samples == nil {
		t.Fatalf("top symbol is not wl_spin:\n%s", rep)
	}
	if testenv.HaveTool(t, "perf", "pmc report's rows not compared with perf report's") == "" {
		return
	}
	prep := perfReport(t, path, "--no-children", "--sort", "sym", "-g", "none")
	ptop := regexp.MustCompile(`(?m)^ +([0-9.]+)% +\[\.\] (\S+)\s*$`).FindStringSubmatch(prep)
	if ptop == nil || ptop[1] != top[1] || ptop[2] != top[2] || !strings.Contains(prep, "# Samples: "+samples[1]+" ") {
		t.Fatalf("perf report says\n%s\npmc report says\n%s", prep, rep)
	}
	if g, w := reportRows(rep), reportRows(prep); strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Errorf("rows differ from perf's:\n%s", strings.Join(g, "\n")+"\n--- perf\n"+strings.Join(w, "\n"))
	}
}

// Every export of one recording: JSON with its schema, folded stacks, a pprof profile that
// parses, a flame graph page.
func TestReportExports(t *testing.T) {
	testenv.CheckFDs(t)
	file := filepath.Join(perfDataDir, "callgraph.data")
	dir := t.TempDir()
	js, errs, code := runReportCmd(t, "-i", file, "--json", "--pprof", filepath.Join(dir, "p.pb.gz"), "--html", filepath.Join(dir, "f.html"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct{ Schema string }
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Schema != "pmc.report/v1" {
		t.Fatalf("JSON: %v, schema %q", err, doc.Schema)
	}
	pb, err := os.Open(filepath.Join(dir, "p.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	prof, err := pprofile.Parse(pb)
	if err != nil || len(prof.Sample) != 137 {
		t.Fatalf("pprof: %v, %d samples (want the file's 137)", err, len(prof.Sample))
	}
	if html, err := os.ReadFile(filepath.Join(dir, "f.html")); err != nil || !bytes.Contains(html, []byte("wl_spin")) {
		t.Fatalf("flame graph: %v", err)
	}
	folded, _, code := runReportCmd(t, "-i", file, "--folded")
	if code != 0 || !strings.Contains(folded, "loop;[unknown];__do_global_dtors_aux;wl_spin 134000000\n") {
		t.Fatalf("folded (exit %d):\n%s", code, folded)
	}
}

// Bad input: one line naming the fix, non-zero exit, no panic; nothing written.
func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join(perfDataDir, "cpuclock.data"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("truncated.data", good[:100])
	garbage := write("garbage.data", bytes.Repeat([]byte("garbage!"), 64))
	empty := write("empty.data", nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-i", filepath.Join(dir, "missing.data")}, "no such file: record one"},
		{[]string{"-i", truncated}, "truncated.data"},
		{[]string{"-i", garbage}, "not a readable perf.data"},
		{[]string{"-i", empty}, "empty.data"},
		{[]string{"-i", truncated, "--children", "--no-children"}, "choose one"},
		{[]string{"-i", truncated, "--sort", "bogus"}, "bogus"},
		{[]string{"-i", truncated, "--percent-limit", "101"}, "percentage"},
		{[]string{"-i", truncated, "--json", "--folded"}, "choose one"},
	} {
		out := filepath.Join(dir, "out.txt")
		stdout, stderr, code := runReportCmd(t, append(c.args, "-o", out)...)
		if code == 0 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, %q (want one line with %q)", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: wrote %s", c.args, out)
		}
	}
	// A recording whose writer stopped before its header was finished (pmc record or perf
	// killed) still reports.
	// perf_file_header: data section {offset, size} at 40, the feature bitmap at 72..104.
	end := binary.LittleEndian.Uint64(good[40:]) + binary.LittleEndian.Uint64(good[48:])
	unfinished := append([]byte(nil), good[:end]...)
	clear(unfinished[48:56])
	clear(unfinished[72:104])
	p := write("unfinished.data", unfinished)
	if rep, errs, code := runReportCmd(t, "-i", p, "--symfs", dir); code != 0 || !strings.Contains(rep, "# Samples: 180") {
		t.Errorf("unfinished file: exit %d: %s%s", code, errs, rep)
	}
}

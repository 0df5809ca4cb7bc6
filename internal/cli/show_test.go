package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowRoundTrip: what pmc stat --json saved, pmc show prints exactly as pmc stat printed
// it (counts, scaling, statistics and metrics all come from the file).
func TestShowRoundTrip(t *testing.T) {
	for _, c := range []struct{ fake, args string }{
		{"pmu.json", "-- ./matmul"},
		{"multiplexed.json", "-e cycles,instructions,branches,branch-misses,L1-dcache-loads,LLC-loads -- ./a.out"},
		{"repeat.json", "-r 3 -e task-clock,page-faults,instructions -- ./loop"},
	} {
		spec := filepath.Join("testdata", "fake", c.fake)
		var text, js, stderr bytes.Buffer
		if code := testRun(append([]string{"stat", "--fake", spec}, strings.Fields(c.args)...), &bytes.Buffer{}, &text); code != 0 {
			t.Fatalf("%s: stat exit %d", c.fake, code)
		}
		saved := filepath.Join(t.TempDir(), "r.json")
		if code := testRun(append([]string{"stat", "--fake", spec, "--json", "-o", saved}, strings.Fields(c.args)...), &js, &stderr); code != 0 {
			t.Fatalf("%s: stat --json exit %d: %s", c.fake, code, stderr.String())
		}
		var shown bytes.Buffer
		if code := testRun([]string{"show", saved}, &shown, &stderr); code != 0 {
			t.Fatalf("%s: show exit %d: %s", c.fake, code, stderr.String())
		}
		if shown.String() != text.String() {
			t.Errorf("%s: pmc show differs from pmc stat:\n--- show\n%s\n--- stat\n%s", c.fake, shown.String(), text.String())
		}
	}
}

// TestShowRegions: include/pmc.h's file prints one table per region (golden).
func TestShowRegions(t *testing.T) {
	for _, c := range []struct{ golden, flags string }{
		{"regions.txt", ""},
		{"regions.csv", "-x,"},
	} {
		var out, stderr bytes.Buffer
		args := append([]string{"show"}, strings.Fields(c.flags)...)
		if code := testRun(append(args, filepath.Join("testdata", "show", "regions.json")), &out, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		goldenText(t, filepath.Join("testdata", "show", c.golden), out.String())
	}
}

func TestShowErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	for _, c := range []struct{ file, want string }{
		{write("garbage", "not json"), "not a pmc result file"},
		{write("other", `{"schema": "pmc.mem/v1"}`), "pmc show reads pmc.stat/v1"},
		{write("empty", `{"schema": "pmc.stat/v1", "runs": []}`), "no runs"},
		{write("badregion", `{"schema": "pmc.stat/v1", "runs": [{"counts": []}], "regions": [{"name": "x", "run": 5}]}`), `region "x" names run 5`},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		var out, stderr bytes.Buffer
		if code := testRun([]string{"show", c.file}, &out, &stderr); code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", filepath.Base(c.file), code, stderr.String(), c.want)
		}
	}
}

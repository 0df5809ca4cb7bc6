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
		{write("other", `{"schema": "pmc.other/v1"}`), `schema "pmc.other/v1": want pmc.stat/v1`},
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

// TestShowHostileInput: pmc show bounds what it reads (/dev/zero used to grow to 24 GB),
// escapes control characters of saved names instead of sending them to the terminal, and
// refuses impossible values.
func TestShowHostileInput(t *testing.T) {
	dir := t.TempDir()
	var out, stderr bytes.Buffer
	if code := testRun([]string{"show", "/dev/zero"}, &out, &stderr); code != 1 || !strings.Contains(stderr.String(), "larger than 256 MiB") {
		t.Errorf("/dev/zero: exit %d %q", code, stderr.String())
	}
	esc := filepath.Join(dir, "esc.json")
	os.WriteFile(esc, []byte(`{"schema":"pmc.stat/v1","mode":"launch","command":["x"],"runs":[{"elapsed_sec":1,"counts":[
		{"event":"evil\u001b[31mred","status":"counted","raw":5,"scaled":5,"time_enabled_ns":1,"time_running_ns":1}]}]}`), 0o644)
	out.Reset()
	stderr.Reset()
	if code := testRun([]string{"show", esc}, &out, &stderr); code != 0 || strings.ContainsRune(out.String(), 0x1b) || !strings.Contains(out.String(), `evil\x1b[31mred`) {
		t.Errorf("control characters: exit %d\n%q", code, out.String())
	}
	for name, doc := range map[string]string{
		"negative": `{"schema":"pmc.stat/v1","elapsed_sec":-1,"runs":[{"counts":[]}]}`,
		"running":  `{"schema":"pmc.stat/v1","runs":[{"counts":[{"event":"a","status":"counted","time_enabled_ns":1,"time_running_ns":2}]}]}`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(doc), 0o644)
		stderr.Reset()
		if code := testRun([]string{"show", p}, &out, &stderr); code != 1 || !strings.Contains(stderr.String(), "impossible value") {
			t.Errorf("%s: exit %d %q", name, code, stderr.String())
		}
	}
}

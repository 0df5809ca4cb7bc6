package cli

import (
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// statReport runs pmc stat report -i in (a file, or "-" with stdin from the file named by
// pipe) and returns what it printed on stderr, where perf stat report prints.
func statReport(t *testing.T, in, pipe string) string {
	t.Helper()
	stdin, err := os.Open(cmp.Or(pipe, os.DevNull))
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, workload: [3]*os.File{stdin, nil, nil}, machine: machine, platform: platform}
	if code := run([]string{"stat", "report", "-i", in}, e); code != 0 || stdout.Len() != 0 {
		t.Fatalf("pmc stat report -i %s: exit %d, stdout %q: %s", in, code, stdout.String(), stderr.String())
	}
	return stderr.String()
}

// perfStatReport runs perf stat report on the same input.
func perfStatReport(t *testing.T, in, pipe string) string {
	t.Helper()
	cmd := exec.Command("perf", "stat", "report", "-i", in)
	if pipe != "" {
		f, err := os.Open(pipe)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("perf stat report -i %s: %v\n%s", in, err, out)
	}
	return string(out)
}

// TestStatRecordReport: pmc stat record writes perf stat record's file and pipe; pmc stat
// report prints the counts pmc stat printed, and perf stat report reads pmc's recording
// and prints the same text as pmc stat report, character for character (software events,
// counted for real here).
func TestStatRecordReport(t *testing.T) {
	loop := testenv.Workload(t, "loop")
	dir := t.TempDir()
	file, pipe := filepath.Join(dir, "stat.data"), filepath.Join(dir, "pipe.data")
	evs := "task-clock,page-faults,context-switches,cpu-migrations,cycles"
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"stat", "record", "-e", evs, "-o", file, "--", loop, "20000000"}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc stat record: exit %d: %s", code, stderr.String())
	}
	printed := stderr.String()
	stdout.Reset()
	stderr.Reset()
	if code := testRun([]string{"stat", "record", "-e", evs, "-o", "-", "--", loop, "20000000"}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc stat record -o -: exit %d: %s", code, stderr.String())
	}
	if err := os.WriteFile(pipe, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, fromPipe := statReport(t, file, ""), statReport(t, "-", pipe)
	// The counts pmc stat printed, under the recording's command line and without the
	// rusage perf stat record does not keep.
	want := strings.Replace(printed, "'"+loop+" 20000000'", "'pmc stat record -e "+evs+" -o "+file+" -- "+loop+" 20000000'", 1)
	want = regexp.MustCompile(`(?s)\n\n +[0-9.]+ seconds user\n.*`).ReplaceAllString(want, "\n\n")
	want = strings.TrimRight(want, "\n") + "\n\n"
	if fromFile != want {
		t.Errorf("pmc stat report:\n%s\npmc stat record printed:\n%s", fromFile, want)
	}
	if !strings.Contains(fromPipe, "Performance counter stats for 'pipe':") || !strings.Contains(fromPipe, "msec task-clock") ||
		!strings.Contains(fromPipe, "<not supported>      cycles") {
		t.Errorf("pmc stat report -i - of the pipe:\n%s", fromPipe)
	}
	testenv.Tool(t, "perf") // pmc's recordings read by perf stat report
	if got := perfStatReport(t, file, ""); got != fromFile {
		t.Errorf("perf stat report of pmc's file:\n%s\npmc stat report:\n%s", got, fromFile)
	}
	if got := perfStatReport(t, "-", pipe); got != fromPipe {
		t.Errorf("perf stat report of pmc's pipe:\n%s\npmc stat report:\n%s", got, fromPipe)
	}
}

// countColumns are a stat row's value, event and running share: what perf stat report and
// pmc stat report print alike whatever their metric columns say.
var countColumns = regexp.MustCompile(`(?m)^ +([0-9][0-9.]*) +(?:msec +)?([a-z][\w-]*)\b.*?(\([0-9.]+%\))? *$`)

// TestStatRecordFakeMultiplexed: scripted counts of multiplexed hardware events (the fake
// backend) recorded by pmc read back in perf stat report with pmc's values, scaled and with
// the same running shares; cycles, on the cycle counter all the time in the script, has none.
func TestStatRecordFakeMultiplexed(t *testing.T) {
	file := filepath.Join(t.TempDir(), "stat.data")
	spec := filepath.Join("testdata", "fake", "a57-default.json")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"stat", "record", "--fake", spec, "-o", file, "--", "./x"}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc stat record --fake: exit %d: %s", code, stderr.String())
	}
	pmc := statReport(t, file, "")
	rows := func(s string) []string {
		var out []string
		for _, m := range countColumns.FindAllStringSubmatch(s, -1) {
			if m[2] != "seconds" {
				out = append(out, strings.TrimSpace(m[1]+" "+m[2]+" "+m[3]))
			}
		}
		return out
	}
	if got := rows(pmc); len(got) != 8 || got[4] != "3000000000 cycles" || got[5] != "4000000000 instructions (50.00%)" || !slices.Equal(rows(stderr.String()), got) {
		t.Fatalf("pmc stat report's counts %q, pmc stat record printed %q", got, rows(stderr.String()))
	}
	testenv.Tool(t, "perf")
	if got := rows(perfStatReport(t, file, "")); !slices.Equal(got, rows(pmc)) {
		t.Errorf("perf stat report's counts %q, pmc's %q", got, rows(pmc))
	}
}

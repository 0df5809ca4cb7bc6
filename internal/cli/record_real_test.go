package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// recordLoop records the loop workload with cpu-clock and returns the file and pmc's stderr.
func recordLoop(t *testing.T, extra ...string) (string, string) {
	t.Helper()
	loop := testenv.Workload(t, "loop")
	out := filepath.Join(t.TempDir(), "perf.data")
	var stdout, stderr bytes.Buffer
	args := append([]string{"record", "-e", "cpu-clock", "-F", "2000", "-o", out}, extra...)
	args = append(args, "--", loop, "200000000")
	if code := testRun(args, &stdout, &stderr); code != 0 {
		t.Skipf("pmc record exit %d (sampling not allowed here?): %s", code, stderr.String())
	}
	return out, stderr.String()
}

// readSamples counts the samples of a perf.data file with pmc's reader.
func readSamples(t *testing.T, path string) (n int, pids map[uint32]bool) {
	t.Helper()
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pids = map[uint32]bool{}
	for rs := f.Records(); ; {
		r, err := rs.Next()
		if err == io.EOF {
			return n, pids
		}
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := r.(*perfdata.Sample); ok {
			n++
			pids[s.PID] = true
		}
	}
}

var summaryLine = regexp.MustCompile(`\[ pmc record: Captured and wrote [0-9.]+ MB .*perf\.data \(([0-9]+) samples\) \]`)

func TestRecordPerfReads(t *testing.T) {
	testenv.CheckFDs(t)
	path, stderr := recordLoop(t)
	m := summaryLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary line in %q", stderr)
	}
	n, pids := readSamples(t, path)
	if strconv.Itoa(n) != m[1] || n < 50 || len(pids) != 1 {
		t.Fatalf("summary says %s samples, the file has %d of pids %v", m[1], n, pids)
	}
	if _, err := exec.LookPath("perf"); err != nil {
		return
	}
	script, err := exec.Command("perf", "script", "-i", path, "-F", "comm,ip,sym").Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(script)), "\n")
	if len(lines) != n {
		t.Fatalf("perf script shows %d samples, pmc's reader %d", len(lines), n)
	}
	rep, err := exec.Command("perf", "report", "--stdio", "-i", path, "--sort", "sym").Output()
	if err != nil {
		t.Fatalf("perf report: %v", err)
	}
	top := regexp.MustCompile(`(?m)^ +([0-9.]+)% +\[\.\] (\S+)$`).FindStringSubmatch(string(rep))
	if top == nil || top[2] != "wl_spin" {
		t.Fatalf("perf report's top symbol is not the loop's wl_spin:\n%s", rep)
	}
	if !strings.Contains(string(rep), "# Samples: "+m[1]+"  of event 'cpu-clock'") {
		t.Fatalf("perf report's sample count differs from pmc's %s:\n%s", m[1], rep)
	}
}

// An existing output is kept as FILE.old, as perf keeps it.
func TestRecordKeepsOld(t *testing.T) {
	loop := testenv.Workload(t, "loop")
	out := filepath.Join(t.TempDir(), "perf.data")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "-e", "cpu-clock", "-o", out, "--", loop, "1000"}, &stdout, &stderr); code != 0 {
		t.Skipf("pmc record exit %d: %s", code, stderr.String())
	}
	if b, _ := os.ReadFile(out + ".old"); string(b) != "old" {
		t.Fatalf("perf.data.old holds %q", b)
	}
	if _, err := perfdata.Open(out); err != nil {
		t.Fatal(err)
	}
}

// A workload killed by a signal mid-recording leaves a file perf and pmc read, and pmc exits
// with the workload's 128+N.
func TestRecordKilledWorkload(t *testing.T) {
	loop := testenv.Workload(t, "loop")
	out := filepath.Join(t.TempDir(), "perf.data")
	var stdout, stderr bytes.Buffer
	sh := "(sleep 0.3; kill -KILL $$) & exec " + loop + " 4000000000"
	code := testRun([]string{"record", "-e", "cpu-clock", "-o", out, "--", "/bin/sh", "-c", sh}, &stdout, &stderr)
	if code != 137 {
		t.Fatalf("exit %d, want 137 (killed by SIGKILL): %s", code, stderr.String())
	}
	n, _ := readSamples(t, out)
	if n == 0 {
		t.Fatal("no samples before the kill")
	}
	if _, err := exec.LookPath("perf"); err == nil {
		if b, err := exec.Command("perf", "script", "-i", out).Output(); err != nil || strings.Count(string(b), "\n") != n {
			t.Fatalf("perf script: %v, %d lines for %d samples", err, strings.Count(string(b), "\n"), n)
		}
	}
}

func TestRecordUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record"}, "no command to sample"},
		{[]string{"record", "-c", "10", "-F", "10", "true"}, "choose one"},
		{[]string{"record", "-c", "0", "true"}, "positive period"},
		{[]string{"record", "--call-graph", "dwarf,0", "true"}, "8 to 65528"},
		{[]string{"record", "--call-graph", "fpx", "true"}, "use fp (frame pointers) or dwarf"},
		{[]string{"record", "-p", "1", "-a"}, "different modes"},
		{[]string{"record", "-p", "x"}, "not a process id"},
		{[]string{"record", "--off-cpu", "true"}, "BUILD_BPF_SKEL"}, // what perf's record_offcpu.sh looks for
		{[]string{"record", "-o", "-", "--embed-symbols", "true"}, "give -o a file"},
	} {
		var stdout, stderr bytes.Buffer
		if code := testRun(c.args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), c.want) ||
			strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, %q (want one line with %q)", c.args, code, stderr.String(), c.want)
		}
	}
}

// -q says nothing about a recording that lost nothing (perf's record.sh and
// record_offcpu.sh pass it); the file is whole.
func TestRecordQuiet(t *testing.T) {
	path, stderr := recordLoop(t, "-q")
	if stderr != "" {
		t.Errorf("pmc record -q printed %q", stderr)
	}
	if n, _ := readSamples(t, path); n < 50 {
		t.Errorf("%d samples in the quiet recording", n)
	}
}

// TestRecordBuildIDsHit: a system-wide recording lists the build-ids of the files its
// samples hit, no more, as perf marks them: perf buildid-list --with-hits, which works them
// out from the recording's own samples, lists the same (those whose files still have one).
func TestRecordBuildIDsHit(t *testing.T) {
	testenv.Tool(t, "perf")
	loop := testenv.Workload(t, "loop")
	out := filepath.Join(t.TempDir(), "perf.data")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "-a", "-e", "cpu-clock", "-o", out, "--", loop, "100000000"}, &stdout, &stderr); code != 0 {
		t.Skipf("pmc record -a: exit %d (system-wide sampling not allowed here?): %s", code, stderr.String())
	}
	list := func(args ...string) []string {
		b, err := exec.Command("perf", append([]string{"buildid-list", "-i", out}, args...)...).Output()
		if err != nil {
			t.Fatalf("perf buildid-list %v: %v", args, err)
		}
		var ids []string
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) == 2 && len(f[0]) == 40 { // a hit file without a build-id has none
				ids = append(ids, l)
			}
		}
		slices.Sort(ids)
		return ids
	}
	written, hit := list(), list("--with-hits")
	if !slices.Equal(written, hit) || !slices.ContainsFunc(written, func(l string) bool { return strings.HasSuffix(l, " "+loop) }) {
		t.Errorf("pmc wrote the build-ids of\n%s\nperf finds these hit\n%s", strings.Join(written, "\n"), strings.Join(hit, "\n"))
	}
}

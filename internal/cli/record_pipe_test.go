package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// numberRows are the lines of a text report that carry numbers: the event's header and
// every entry.
var numberRows = regexp.MustCompile(`(?m)^(# Samples:.*|# Event count.*| +[0-9.]+%.*)$`)

var pipeSummary = regexp.MustCompile(`\[ pmc record: Captured and wrote [0-9.]+ MB - \(([0-9]+) samples\) \]`)

// TestRecordPipe: pmc record -o - writes perf's pipe format to standard output, with the
// workload's own standard output sent to its standard error (as perf sends it); the pipe
// holds the samples the summary counts; pmc report -i - and perf report -i - read the same
// report and the same --tasks tree from it.
func TestRecordPipe(t *testing.T) {
	loop := testenv.Workload(t, "loop")
	dir := t.TempDir()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	wlErr, err := os.Create(filepath.Join(dir, "workload.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer wlErr.Close()
	var pipe, stderr bytes.Buffer
	e := &env{stdout: &pipe, stderr: &stderr, workload: [3]*os.File{null, null, wlErr}, machine: machine, platform: platform}
	args := []string{"record", "-e", "task-clock", "-F", "2000", "-o", "-", "--", "/bin/sh", "-c", "echo on-stdout; exec " + loop + " 200000000"}
	if code := run(args, e); code != 0 {
		t.Skipf("pmc record exit %d (sampling not allowed here?): %s", code, stderr.String())
	}
	if b, _ := os.ReadFile(wlErr.Name()); !strings.Contains(string(b), "on-stdout") {
		t.Errorf("the workload's standard output did not go to its standard error: %q", b)
	}
	m := pipeSummary.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no summary line for -: %q", stderr.String())
	}
	f, err := perfdata.NewPipe(bytes.NewReader(pipe.Bytes()))
	if err != nil {
		t.Fatalf("the pipe does not read back: %v", err)
	}
	n := 0
	for rs := f.Records(); ; {
		r, err := rs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.(*perfdata.Sample); ok {
			n++
		}
	}
	if strconv.Itoa(n) != m[1] || n < 50 || len(f.Features.BuildIDs) == 0 {
		t.Fatalf("the summary says %s samples, the pipe holds %d and %d build-ids", m[1], n, len(f.Features.BuildIDs))
	}
	in := filepath.Join(dir, "pipe.data")
	if err := os.WriteFile(in, pipe.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pmcReport := func(args ...string) string {
		stdin, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		var out, errs bytes.Buffer
		e := &env{stdout: &out, stderr: &errs, workload: [3]*os.File{stdin, null, null}, machine: machine, platform: platform}
		if code := run(append([]string{"report", "-i", "-"}, args...), e); code != 0 {
			t.Fatalf("pmc report -i - %v: exit %d: %s", args, code, errs.String())
		}
		return out.String()
	}
	rows := strings.Join(numberRows.FindAllString(pmcReport("--stdio"), -1), "\n")
	if !strings.Contains(rows, "# Samples: "+m[1]+"  of event 'task-clock'") || !strings.Contains(rows, "[.] wl_spin") {
		t.Fatalf("pmc report -i - does not show the recording's %s samples in wl_spin:\n%s", m[1], rows)
	}
	tasks := pmcReport("--tasks")
	if !regexp.MustCompile(`(?m)^ +[0-9]+ +[0-9]+ +-1 \|loop$`).MatchString(tasks) {
		t.Errorf("pmc report --tasks does not list the loop:\n%s", tasks)
	}
	testenv.Tool(t, "perf") // pmc's pipe compared with perf report -i -
	perfReport := func(args ...string) string {
		cmd := exec.Command("perf", append([]string{"report", "-i", "-"}, args...)...)
		stdin, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		cmd.Stdin = stdin
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("perf report -i - %v: %v", args, err)
		}
		return string(out)
	}
	if want := strings.Join(numberRows.FindAllString(perfReport("--stdio"), -1), "\n"); rows != want {
		t.Errorf("pmc report -i -:\n%s\nperf report -i -:\n%s", rows, want)
	}
	if want := perfReport("--tasks"); tasks != want {
		t.Errorf("pmc report --tasks:\n%s\nperf report --tasks:\n%s", tasks, want)
	}
}

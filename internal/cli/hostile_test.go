package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/unix"
)

// These tests reproduce what an adversarial test of pmc stat found (issue 16), one each.

// TestOutputCheckedFirst: an output that cannot be written stops pmc before the workload runs
// (the workload here would leave a marker file, then sleep a minute); perf fails the same way
// in 10 ms.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "nonexistent", "out.txt")},
		{"-o", dir},
		{"--report=" + dir},
	} {
		start := time.Now()
		var stdout, stderr bytes.Buffer
		full := append(append([]string{"stat", "-e", "task-clock"}, args...), "--", "sh", "-c", "touch "+marker+"; sleep 60")
		code := testRun(full, &stdout, &stderr)
		if code != 1 || time.Since(start) > 30*time.Second || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
			t.Errorf("%v: exit %d after %v:\n%s", args, code, time.Since(start), stderr.String())
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%v: the workload ran", args)
		}
	}
}

// TestOutputFailsAtTheEnd: when the output cannot be written after the run (a full disk:
// /dev/full), the counts go to stderr and the workload's exit status is kept.
func TestOutputFailsAtTheEnd(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	var stdout, stderr bytes.Buffer
	code := testRun([]string{"stat", "--json", "-e", "task-clock,page-faults", "-o", "/dev/full", "--", "sh", "-c", "exit 3"}, &stdout, &stderr)
	out := stderr.String()
	if code != 3 || !strings.Contains(out, "could not be written to /dev/full") || !strings.Contains(out, "page-faults") ||
		!strings.Contains(out, "no space left on device") {
		t.Errorf("exit %d, want 3 with the counts on stderr:\n%s", code, out)
	}
}

// TestMachineReadableStderr: pmc's hints never enter JSON or CSV written to stderr (the no-PMU
// hint and the user-space note made `pmc stat --json 2>&1 >/dev/null | python3 -m json.tool`
// fail); JSON carries them in notes.
func TestMachineReadableStderr(t *testing.T) {
	for _, form := range [][]string{{"--json"}, {"-x,"}, {"--csv"}} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"stat"}, form...), "-e", "task-clock,instructions", "--", "true")
		if code := testRun(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d\n%s", form, code, stderr.String())
		}
		out := stderr.String()
		if strings.Contains(out, "pmc:") {
			t.Errorf("%v: a hint in the data stream:\n%s", form, out)
		}
		if form[0] == "--json" {
			var r result.Stat
			if err := json.Unmarshal(stderr.Bytes(), &r); err != nil {
				t.Errorf("stderr is not one JSON document: %v", err)
			}
			if machine().Core == nil && !strings.Contains(strings.Join(r.Notes, "\n"), "no hardware PMU") {
				t.Errorf("the no-PMU hint is not in notes: %q", r.Notes)
			}
			continue
		}
		rd := csv.NewReader(strings.NewReader(out))
		rd.FieldsPerRecord = -1
		if _, err := rd.ReadAll(); err != nil {
			t.Errorf("%v: stderr is not CSV: %v", form, err)
		}
	}
}

// TestLargeGroup: a group larger than any fixed read buffer (perf handles 200 members; 96
// failed after the run with "no space left on device").
func TestLargeGroup(t *testing.T) {
	ev := "{" + strings.TrimSuffix(strings.Repeat("page-faults,", 200), ",") + "}"
	r, code := pmcJSON(t, "-e", ev, "--", "true")
	if code != 0 || len(r.Summary) != 200 {
		t.Fatalf("exit %d, %d events", code, len(r.Summary))
	}
	for _, s := range r.Summary {
		if s.Status != result.Counted || s.Mean != r.Summary[0].Mean {
			t.Fatalf("member %+v differs from the leader %+v", s, r.Summary[0])
		}
	}
}

// TestInterruptedRepeatSaysSo: -r 10 interrupted in run 3 says 3 of 10 runs, in text and JSON.
func TestInterruptedRepeatSaysSo(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.json")
	os.WriteFile(spec, []byte(`{"runs":[{"elapsed_sec":1,"counts":{"task-clock":{"raw":1000000,"enabled":1000000,"running":1000000}}},
		{"elapsed_sec":1,"counts":{"task-clock":{"raw":1000000,"enabled":1000000,"running":1000000}}},
		{"elapsed_sec":0.5,"signal":"SIGINT","exit_status":130,"counts":{"task-clock":{"raw":500000,"enabled":500000,"running":500000}}}]}`), 0o644)
	var stdout, stderr bytes.Buffer
	code := testRun([]string{"stat", "--fake", spec, "-r", "10", "-e", "task-clock", "--", "./x"}, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "(3 of 10 runs: interrupted)") {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
	stderr.Reset()
	testRun([]string{"stat", "--fake", spec, "-r", "10", "--json", "-e", "task-clock", "--", "./x"}, &stdout, &stderr)
	var r result.Stat
	if err := json.Unmarshal(stderr.Bytes(), &r); err != nil || r.Repeat != 10 || r.Completed != 3 || !r.Interrupted || len(r.Runs) != 3 {
		t.Errorf("JSON: repeat %d completed %d interrupted %v runs %d (%v)", r.Repeat, r.Completed, r.Interrupted, len(r.Runs), err)
	}
}

// TestStopsEndWithZero: when pmc itself ends the workload (--interval-count, --duration) it
// exits 0, as perf's --interval-count and --timeout do, not with the workload's 143; and it
// ends it well before the workload's minute is over.
func TestStopsEndWithZero(t *testing.T) {
	for _, args := range [][]string{
		{"-I", "100", "--interval-count", "1", "-e", "task-clock", "--", "sleep", "60"},
		{"--duration", "200ms", "-e", "task-clock", "--", "sleep", "60"},
	} {
		start := time.Now()
		r, code := pmcJSON(t, args...)
		if code != 0 || time.Since(start) > 30*time.Second || !r.Runs[0].Stopped || r.Runs[0].ExitStatus != 143 {
			t.Errorf("%v: exit %d after %v, run %+v", args, code, time.Since(start), r.Runs[0])
		}
	}
}

// TestSignals: SIGQUIT to pmc counting system-wide prints the counts like SIGINT (no
// goroutine dump), and a workload that ignores SIGTERM no longer keeps pmc alive: pmc
// reports what it counted after the grace period (perf exits at once). pmc must end well
// before the minute the duration or the workload would take, however loaded the machine.
func TestSignals(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("system-wide counting needs root (or perf_event_paranoid 0)")
	}
	run := func(sig os.Signal, systemWide bool, args ...string) (string, int, time.Duration) {
		cmd := pmcCmd(t, args...)
		// A file, not a pipe: a workload left running keeps a pipe open, and Wait would wait
		// for it too.
		out, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once pmc is counting: the workload said "ready" (launch mode), or pmc holds
		// its counters (system-wide prints nothing until the end; its signal handler is set
		// before they open). A fixed wait was not always enough under load.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, _ := os.ReadFile(out.Name()); strings.Contains(string(b), "ready") || systemWide && perfFDs(cmd.Process.Pid) > 0 {
				break
			}
		}
		start := time.Now()
		cmd.Process.Signal(sig)
		cmd.Wait()
		took := time.Since(start)
		b, _ := os.ReadFile(out.Name())
		return string(b), cmd.ProcessState.ExitCode(), took
	}
	out, code, took := run(unix.SIGQUIT, true, "stat", "-a", "-e", "cpu-clock", "--duration", "60s")
	if code != 0 || !strings.Contains(out, "cpu-clock") || strings.Contains(out, "goroutine") || took > 30*time.Second {
		t.Errorf("SIGQUIT: exit %d after %v:\n%s", code, took, out)
	}
	// The workload execs sleep with SIGTERM still ignored, and is killed at the end.
	out, code, took = run(unix.SIGTERM, false, "stat", "-e", "task-clock", "--", "bash", "-c", `trap "" TERM; echo ready $$; exec sleep 60`)
	if _, rest, _ := strings.Cut(out, "ready "); len(strings.Fields(rest)) > 0 {
		if pid, err := strconv.Atoi(strings.Fields(rest)[0]); err == nil {
			unix.Kill(pid, unix.SIGKILL)
		}
	}
	if code != 143 || !strings.Contains(out, "task-clock") || !strings.Contains(out, "still runs") || took > launch.Grace+30*time.Second {
		t.Errorf("a workload ignoring SIGTERM: exit %d after %v:\n%s", code, took, out)
	}
}

// perfFDs counts the perf_event file descriptors process pid holds.
func perfFDs(pid int) int {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	n := 0
	for _, fd := range fds {
		if l, _ := os.Readlink(fd); l == "anon_inode:[perf_event]" {
			n++
		}
	}
	return n
}

// TestMSRTSC: msr/tsc/ is counted (its PMU refuses exclude_guest; pmc retries without it as
// perf does, and says so) where the msr PMU exists.
func TestMSRTSC(t *testing.T) {
	if machine().PMUs.PMUs["msr"] == nil {
		t.Skip("no msr PMU here")
	}
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"stat", "-e", "msr/tsc/", "--", "true"}, &stdout, &stderr); code != 0 ||
		strings.Contains(stderr.String(), "not supported") || !strings.Contains(stderr.String(), "cannot exclude guests") {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
}

// TestEmptyAndNegativeValues: flags given an empty, zero or negative value are refused in
// one line instead of meaning "not given" (-e ” counted the default set, --duration 0 ran
// until killed).
func TestEmptyAndNegativeValues(t *testing.T) {
	for _, args := range [][]string{
		{"stat", "-e", "", "--", "true"}, {"stat", "-e", "task-clock", "-e", " ", "--", "true"},
		{"stat", "-x", "", "--", "true"}, {"stat", "-o", "", "--", "true"}, {"stat", "--report=", "--", "true"},
		{"stat", "-M", "", "--", "true"}, {"stat", "--metric-group", "", "--", "true"},
		{"stat", "--metrics-file", "", "--", "true"}, {"stat", "-p", ""}, {"stat", "-C", "", "--", "true"},
		{"stat", "--duration", "0", "--", "true"}, {"stat", "--duration", "-1s", "--", "true"},
		{"stat", "-I", "100", "--interval-count", "-1", "--", "true"},
		{"list", "--cpu", ""}, {"explain", "--cpu", "", "cycles"},
	} {
		_, errs, code := runPMC(args...)
		if code != 1 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "pmc: ") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

// TestJSONAppendIsJSONLines: --json -o FILE --append adds one document per line, which
// pmc show reads back (it wrote concatenated indented documents).
func TestJSONAppendIsJSONLines(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs.jsonl")
	for i := 0; i < 3; i++ {
		if _, errs, code := runPMC("stat", "--fake", "testdata/fake/pmu.json", "--json", "-o", out, "--append", "--", "./x"); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	data, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	n := 0
	for _, l := range lines {
		var r result.Stat
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Schema != result.SchemaVersion {
			t.Fatalf("line is not a document: %v\n%s", err, l)
		}
		n++
	}
	shown, errs, code := runPMC("show", out)
	if n != 3 || code != 0 || strings.Count(shown, "Performance counter stats") != 3 {
		t.Errorf("%d lines; pmc show exit %d (%s):\n%s", n, code, errs, shown)
	}
}

// TestSystemWideLayout: perf's layout where pmc claims it: -a's default set counts
// cpu-clock, -a -A prints each event on every CPU in turn, and -C names only online CPUs
// (-C 0-99 on a 2-CPU machine counted 2 and said "CPU(s) 0-99").
func TestSystemWideLayout(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("system-wide counting needs root (or perf_event_paranoid 0)")
	}
	r, code := pmcJSON(t, "-a", "--duration", "50ms")
	if code != 0 || r.Summary[0].Event != "cpu-clock" {
		t.Errorf("exit %d, first default event %q, want cpu-clock", code, r.Summary[0].Event)
	}
	r, _ = pmcJSON(t, "-a", "-A", "-e", "cpu-clock,context-switches", "--duration", "50ms")
	var order []string
	for _, s := range r.Summary {
		order = append(order, fmt.Sprintf("%s@%d", s.Event, s.CPU))
	}
	online := machine().PMUs.Online
	var want []string
	for _, ev := range []string{"cpu-clock", "context-switches"} {
		for _, c := range online {
			want = append(want, fmt.Sprintf("%s@%d", ev, c))
		}
	}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("-A order %v, want %v", order, want)
	}
	_, errs, code := runPMC("stat", "-C", "0-9999", "-e", "cpu-clock", "--duration", "50ms")
	if code != 1 || !strings.Contains(errs, "not online here") {
		t.Errorf("-C 0-9999: exit %d %q", code, errs)
	}
}

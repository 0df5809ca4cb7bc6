package cli

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// perfSamples is the number of samples perf script finds in a recording (perf reads pmc's
// files as well as its own).
func perfSamples(t *testing.T, path string) int {
	t.Helper()
	out, err := exec.Command("perf", "script", "-F", "ip", "-i", path).Output()
	if err != nil {
		t.Fatalf("perf script -i %s: %v", path, err)
	}
	return strings.Count(string(out), "\n")
}

// TestRecordPeriodMatchesPerf: -c N samples every Nth software event, as perf does (it
// sampled every page fault: 65,564 samples where perf wrote 64). array2d of 256 MiB faults
// the same number of times at every run (65,564 here).
func TestRecordPeriodMatchesPerf(t *testing.T) {
	needPerf(t)
	wl := []string{workload(t, "array2d"), "--rows", "4096", "--cols", "8192"}
	dir := t.TempDir()
	for _, period := range []string{"1000", "10000"} {
		mine, theirs := filepath.Join(dir, "pmc-"+period), filepath.Join(dir, "perf-"+period)
		var stdout, stderr bytes.Buffer
		if code := testRun(append([]string{"record", "-e", "page-faults", "-c", period, "-o", mine, "--"}, wl...), &stdout, &stderr); code != 0 {
			t.Fatalf("pmc record: exit %d: %s", code, stderr.String())
		}
		perf := exec.Command("perf", append([]string{"record", "-e", "page-faults", "-c", period, "-o", theirs, "--"}, wl...)...)
		if out, err := perf.CombinedOutput(); err != nil {
			t.Fatalf("perf record: %v\n%s", err, out)
		}
		got, want := perfSamples(t, mine), perfSamples(t, theirs)
		t.Logf("-c %s: pmc %d samples, perf %d", period, got, want)
		if got < want-1 || got > want+1 || want == 0 {
			t.Errorf("-c %s: pmc wrote %d samples, perf %d", period, got, want)
		}
		if n, _ := readSamples(t, mine); n != got {
			t.Errorf("-c %s: pmc's reader finds %d samples, perf %d", period, n, got)
		}
	}
}

// TestRecordFreqClamped: -F above kernel.perf_event_max_sample_rate is lowered to it with a
// warning, as perf does (pmc failed with EINVAL).
func TestRecordFreqClamped(t *testing.T) {
	limit, err := machine().MaxSampleRate()
	if err != nil {
		t.Skip("no kernel.perf_event_max_sample_rate:", err)
	}
	out := filepath.Join(t.TempDir(), "perf.data")
	var stdout, stderr bytes.Buffer
	asked := strconv.FormatUint(limit*10, 10)
	if code := testRun([]string{"record", "-e", "cpu-clock", "-F", asked, "-o", out, "--", "true"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "-F "+asked+" is above kernel.perf_event_max_sample_rate") {
		t.Errorf("no warning: %s", stderr.String())
	}
	f, err := perfdata.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if a := f.Events[0].Attr; a.Flags&perfdata.FlagFreq == 0 || a.SamplePeriod != limit {
		t.Errorf("sampled at %d Hz (freq %v), want the limit %d", a.SamplePeriod, a.Flags&perfdata.FlagFreq != 0, limit)
	}
}

// TestRecordZombie: -p of a process that has exited but is not reaped says so (it said
// "invalid event attributes (ESRCH)").
func TestRecordZombie(t *testing.T) {
	parent := exec.Command("/bin/sh", "-c", "/bin/true & exec sleep 60")
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { parent.Process.Kill(); parent.Wait() }()
	var zombie int
	for deadline := time.Now().Add(time.Minute); zombie == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(parent.Process.Pid) + "/task/" + strconv.Itoa(parent.Process.Pid) + "/children")
		for _, f := range strings.Fields(string(b)) {
			if st, _, err := machine().Process(atoi(f)); err == nil && st == 'Z' {
				zombie = atoi(f)
			}
		}
	}
	if zombie == 0 {
		t.Skip("could not make a zombie (no /proc/PID/task/TID/children?)")
	}
	var stdout, stderr bytes.Buffer
	code := testRun([]string{"record", "-e", "cpu-clock", "-p", strconv.Itoa(zombie), "-o", filepath.Join(t.TempDir(), "z.data")}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "process "+strconv.Itoa(zombie)+" has exited") || strings.Contains(stderr.String(), "ESRCH") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestRecordFullDisk: a disk that fills up during the recording (a 512 KiB tmpfs) neither
// kills the workload (it runs to its own exit status 3) nor loses the file: what was
// written is a recording perf report and pmc report read, with the samples pmc says it
// kept, and pmc says how many were not written.
func TestRecordFullDisk(t *testing.T) {
	dir, _ := fullTmpfs(t, "512k")
	out := filepath.Join(dir, "perf.data")
	loop := workload(t, "loop")
	var stdout, stderr bytes.Buffer
	code := testRun([]string{"record", "-e", "cpu-clock", "-F", "50000", "-o", out, "--",
		"/bin/sh", "-c", loop + " 2000000000; exit 3"}, &stdout, &stderr)
	errs := stderr.String()
	if code != 3 {
		t.Fatalf("exit %d, want the workload's 3 (it ran on): %s", code, errs)
	}
	m := regexp.MustCompile(`no space left on device: .* keeps the first (\d+) samples .*; (\d+) samples after them were not written`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("pmc did not say what the full disk cost: %s", errs)
	}
	kept, lost := atoi(m[1]), atoi(m[2])
	t.Logf("kept %d samples, %d not written", kept, lost)
	if kept == 0 || lost == 0 {
		t.Fatalf("kept %d, lost %d: the disk was not full mid-recording", kept, lost)
	}
	if n, _ := readSamples(t, out); n != kept {
		t.Errorf("pmc's reader finds %d samples, pmc said it kept %d", n, kept)
	}
	var rout, rerr bytes.Buffer
	if code := testRun([]string{"report", "-i", out, "--stdio"}, &rout, &rerr); code != 0 || !strings.Contains(rout.String(), "of event 'cpu-clock'") {
		t.Errorf("pmc report: exit %d %s\n%s", code, rerr.String(), rout.String())
	}
	if testenv.HaveTool(t, "perf", "the samples kept counted by perf report") != "" {
		if n := perfSamples(t, out); n != kept {
			t.Errorf("perf report finds %d samples, pmc said it kept %d", n, kept)
		}
	}
}

// TestRecordUnprivileged: at perf_event_paranoid 2 an ordinary user's pmc record samples
// user space only, as perf record does, and says so (it failed with "permission denied").
// The test runs pmc as nobody.
func TestRecordUnprivileged(t *testing.T) {
	if p := strings.TrimSpace(readFile(t, "/proc/sys/kernel/perf_event_paranoid")); p != "2" {
		t.Skipf("kernel.perf_event_paranoid is %s: an unprivileged user is refused nothing this test checks (needs 2)", p)
	}
	asNobody := nobodyPMC(t)
	dir, err := os.MkdirTemp("", "pmc-nobody-data-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	for _, c := range []struct {
		args  []string
		notes []string
	}{
		{[]string{"-e", "cpu-clock"}, []string{"sampling user space only (as :u) for cpu-clock: kernel.perf_event_paranoid is 2"}},
		{nil, []string{"sampling user space only (as :u)"}},
	} {
		out := filepath.Join(dir, "perf.data")
		os.Remove(out)
		args := append(append([]string{"record", "-o", out}, c.args...), "--", "/bin/sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
		stderr, code := asNobody(dir, args...)
		if code != 0 {
			t.Fatalf("pmc %v as nobody: exit %d\n%s", c.args, code, stderr)
		}
		for _, n := range c.notes {
			if !strings.Contains(stderr, n) {
				t.Errorf("pmc %v: no note %q in:\n%s", c.args, n, stderr)
			}
		}
		f, err := perfdata.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		if f.Events[0].Attr.Flags&perfdata.FlagExcludeKernel == 0 {
			t.Errorf("pmc %v: the file's event does not exclude the kernel", c.args)
		}
		f.Close()
		if n, _ := readSamples(t, out); n == 0 {
			t.Errorf("pmc %v: no samples", c.args)
		}
	}
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	return string(b)
}

// TestRecordKernelBuildID: the recording carries the running kernel's build-id as perf
// records it ([kernel.kallsyms] in the build-id feature), so a later report can tell the
// recording's kernel from the one it runs on; perf buildid-list reads it from pmc's file
// and finds the same id as for the running kernel (perf buildid-list -k).
func TestRecordKernelBuildID(t *testing.T) {
	needPerf(t)
	kernel, err := exec.Command("perf", "buildid-list", "-k").Output()
	if err != nil || len(bytes.TrimSpace(kernel)) == 0 {
		t.Skipf("perf cannot read the running kernel's build-id here: %v", err)
	}
	// perf lists the kernel when samples hit it: one byte per read and write keeps dd in the
	// kernel, then the loop workload runs in user space.
	loop := workload(t, "loop")
	path := filepath.Join(t.TempDir(), "perf.data")
	script := `dd if=/dev/zero of=/dev/null bs=1 count=1000000 2>/dev/null; "$0" 200000000`
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "-e", "cpu-clock", "-F", "2000", "-o", path, "--", "sh", "-c", script, loop}, &stdout, &stderr); code != 0 {
		t.Fatalf("pmc record: exit %d: %s", code, stderr.String())
	}
	out, err := exec.Command("perf", "buildid-list", "-i", path).CombinedOutput()
	if err != nil {
		t.Fatalf("perf buildid-list -i: %v\n%s", err, out)
	}
	want := string(bytes.TrimSpace(kernel)) + " [kernel.kallsyms]"
	if !strings.Contains(string(out), want+"\n") {
		t.Fatalf("perf buildid-list -i %s:\n%s\nwant the line %q", path, out, want)
	}
	if !strings.Contains(string(out), " "+loop+"\n") {
		t.Errorf("no build-id for the workload %s:\n%s", loop, out)
	}
}

// TestRecordKernelBuildIDPerfReport: perf report uses the kernel build-id pmc recorded: with
// it, kernel samples get the running kernel's symbols; with one byte of it changed (a
// recording of another kernel), perf leaves them as addresses.
func TestRecordKernelBuildIDPerfReport(t *testing.T) {
	needPerf(t)
	kernel, err := exec.Command("perf", "buildid-list", "-k").Output()
	id, herr := hex.DecodeString(string(bytes.TrimSpace(kernel)))
	if err != nil || herr != nil || len(id) == 0 {
		t.Skipf("perf cannot read the running kernel's build-id here: %v %v", err, herr)
	}
	path := filepath.Join(t.TempDir(), "perf.data")
	var stdout, stderr bytes.Buffer
	// Reading /proc many times: kernel samples.
	sh := "i=0; while [ $i -lt 300 ]; do cat /proc/self/stat >/dev/null; i=$((i+1)); done"
	if code := testRun([]string{"record", "-e", "cpu-clock", "-F", "10000", "-o", path, "--", "/bin/sh", "-c", sh}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	kernelRows := func(p string) (named, all int) {
		out, err := exec.Command("perf", "report", "--stdio", "-i", p, "--sort", "sym").Output()
		if err != nil {
			t.Fatalf("perf report: %v", err)
		}
		return len(regexp.MustCompile(`(?m)\[k\] [a-z_]`).FindAll(out, -1)), strings.Count(string(out), "[k] ")
	}
	n, all := kernelRows(path)
	if all == 0 || n == 0 {
		t.Skipf("no named kernel samples to compare (%d of %d rows named): kernel symbols hidden here?", n, all)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, id)
	if i < 0 || bytes.Count(b, id) != 1 {
		t.Fatalf("the kernel's build-id is %d times in the file", bytes.Count(b, id))
	}
	b[i] ^= 0xff
	other := filepath.Join(t.TempDir(), "other-kernel.data")
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if n2, all2 := kernelRows(other); n2 != 0 || all2 == 0 {
		t.Errorf("another kernel's recording: perf named %d of %d kernel rows (it named %d of %d with the right build-id)", n2, all2, n, all)
	}
}

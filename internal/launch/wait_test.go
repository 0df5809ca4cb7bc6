package launch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// voluntarySwitches sums voluntary_ctxt_switches over this process's threads. The main
// thread's /proc/self/status alone misses the churn: it is sysmon, another thread, that wakes.
func voluntarySwitches(t *testing.T) int64 {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no /proc/self/task: %v", err)
	}
	var sum int64
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that just exited
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				sum += n
			}
		}
	}
	return sum
}

// While the workload runs pmc's threads sleep. Measured on 2 vCPUs around a 0.5 s sleep:
// 2-9 switches with the pidfd in the poller (21 once on a machine also booting QEMU guests,
// 35 once at load average 15), 55-58 with os.Process.Wait (sysmon waking every ~10 ms while a
// thread sits in waitid). The bound is between the two, and the quietest of three waits is
// held to it: noise from a loaded machine comes and goes, a polling wait never gets under it.
// The measure is taken in a fresh copy of the test binary, so that goroutines left by other
// tests do not count.
func TestWaitIsQuiet(t *testing.T) {
	const bound, tries = 30, 3
	if raceEnabled {
		t.Skip("the race runtime has threads of its own")
	}
	if os.Getenv("PMC_LAUNCH_TEST_QUIET") == "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestWaitIsQuiet$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "PMC_LAUNCH_TEST_QUIET=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestWaitIsQuiet") {
			t.Fatalf("inner run: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "voluntary") {
				t.Log(strings.TrimSpace(l))
			}
		}
		return
	}
	quietest := int64(-1)
	for i := 0; i < tries && (quietest < 0 || quietest > bound); i++ {
		t0 := time.Now()
		ch, err := Start(Cmd{Args: []string{"sleep", "0.5"}})
		if err != nil {
			t.Fatal(err)
		}
		ch.Exec()
		before := voluntarySwitches(t)
		st, err := ch.Wait(context.Background())
		after := voluntarySwitches(t)
		wall := time.Since(t0)
		if err != nil || st.ExitCode() != 0 {
			t.Fatalf("status %d, %v", st.ExitCode(), err)
		}
		if st.Elapsed < 500*time.Millisecond || st.Elapsed > wall {
			t.Errorf("Elapsed %v for sleep 0.5 (%v around it)", st.Elapsed, wall)
		}
		n := after - before
		t.Logf("wait %d: %d voluntary context switches while waiting 0.5 s", i+1, n)
		if quietest < 0 || n < quietest {
			quietest = n
		}
	}
	if quietest > bound {
		t.Errorf("%d voluntary context switches in pmc while waiting 0.5 s, the quietest of %d waits; want <= %d", quietest, tries, bound)
	}
}

// Go raises its soft RLIMIT_NOFILE at start-up; the workload must get the limit pmc was
// started with. The test runs itself again under `ulimit -Sn 512` so that there is a raise.
func TestRlimitNofile(t *testing.T) {
	const want = 512
	if os.Getenv("PMC_LAUNCH_TEST_RLIMIT") == "" {
		var lim unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		if lim.Max <= want+1 {
			t.Skipf("hard limit %d leaves no room to raise above %d", lim.Max, want)
		}
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", `ulimit -Sn `+strconv.Itoa(want)+` && exec "$0" -test.run='^TestRlimitNofile$' -test.count=1 -test.v`, exe)
		cmd.Env = append(os.Environ(), "PMC_LAUNCH_TEST_RLIMIT=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestRlimitNofile") {
			t.Fatalf("inner run: %v\n%s", err, out)
		}
		return
	}
	var lim unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	if lim.Cur == want {
		t.Fatalf("Go did not raise the soft limit from %d: the test would prove nothing", want)
	}
	out, err := os.CreateTemp(t.TempDir(), "ulimit")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if st := run(t, Cmd{Args: []string{"sh", "-c", "ulimit -n"}, Stdout: out}); st.ExitCode() != 0 {
		t.Fatalf("status %d", st.ExitCode())
	}
	b, _ := os.ReadFile(out.Name())
	if got := strings.TrimSpace(string(b)); got != strconv.Itoa(want) {
		t.Errorf("workload's ulimit -n = %s, want %d (pmc's own soft limit is %d)", got, want, lim.Cur)
	}
}

// The workload starts with the signal mask and ignored set a direct exec would give it (the
// shim is a Go program that exec's from its main thread).
func TestSignalState(t *testing.T) {
	script := `grep -E '^Sig(Blk|Ign)' /proc/self/status`
	direct, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.CreateTemp(t.TempDir(), "sig")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	run(t, Cmd{Args: []string{"sh", "-c", script}, Stdout: out})
	got, _ := os.ReadFile(out.Name())
	if string(got) != string(direct) || !strings.Contains(string(got), "SigBlk:\t0000000000000000") {
		t.Errorf("through the shim:\n%s\ndirect:\n%s", got, direct)
	}
}

// User and Sys come from wait's rusage without the shim's Go start-up: a CPU-bound workload
// costs about what it costs when started directly, /bin/true next to nothing.
func TestCPUTimes(t *testing.T) {
	const loop = "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"
	st := run(t, Cmd{Args: []string{"sh", "-c", loop}})
	cpu := st.User + st.Sys
	c := exec.Command("sh", "-c", loop)
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	loopDirect := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	if cpu > st.Elapsed+5*time.Millisecond || cpu < loopDirect/2 || cpu > 2*loopDirect {
		t.Errorf("busy loop: user %v + sys %v (elapsed %v); %v started directly", st.User, st.Sys, st.Elapsed, loopDirect)
	}
	if raceEnabled {
		t.Log("NOT TESTED under -race: the shim's start-up kept out of /bin/true's CPU time (a race-built shim spends more after its own rusage record)")
		return
	}
	// /bin/true against the same started by os/exec (no shim). Measured medians: 0.96 ms
	// through the shim, 0.66 ms direct, 2.8 ms through the shim if its Go start-up were kept.
	var shim, direct []time.Duration
	for i := 0; i < 7; i++ {
		st := run(t, Cmd{Args: []string{"/bin/true"}})
		shim = append(shim, st.User+st.Sys)
		c := exec.Command("/bin/true")
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
		direct = append(direct, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
	}
	if d := median(shim) - median(direct); d > time.Millisecond {
		t.Errorf("/bin/true: user+sys median %v through the shim, %v direct: the shim's start-up is counted",
			median(shim), median(direct))
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestElapsedFromExec: the wall time runs from the workload's exec to its exit, so it
// contains the workload's run and not the shim's start-up: sleep 0.2 reads at least 0.2 s
// and no more than the parent saw from Exec to Wait's return.
func TestElapsedFromExec(t *testing.T) {
	for i := 0; i < 3; i++ {
		ch, err := Start(Cmd{Args: []string{"sleep", "0.2"}})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if err := ch.Exec(); err != nil {
			t.Fatal(err)
		}
		st, err := ch.Wait(context.Background())
		outer := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		if st.Elapsed < 200*time.Millisecond || st.Elapsed > outer {
			t.Errorf("elapsed %v: want at least 200ms and at most the %v from Exec to Wait", st.Elapsed, outer)
		}
	}
}

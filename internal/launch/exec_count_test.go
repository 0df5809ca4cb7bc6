package launch

import (
	"context"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// These tests open counters the way pmc stat does (package stat), on a shim before its exec,
// to check what this package promises: counting starts at the workload's exec.

// countOnExec runs argv through Start with one software counter opened on the shim with
// enable_on_exec, inherit and disabled, as pmc stat does, and returns the count.
func countOnExec(t *testing.T, config uint64, argv ...string) uint64 {
	t.Helper()
	path, err := LookPath(argv[0])
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Start(Cmd{Path: path, Args: argv})
	if err != nil {
		t.Fatal(err)
	}
	c, err := perfevent.Open(argv[0], onExecAttr(config), ch.Pid(), perfevent.AnyCPU, nil)
	if err != nil {
		ch.Kill()
		t.Fatalf("perf_event_open: %v", err)
	}
	defer c.Close()
	if err := ch.Exec(); err != nil {
		t.Fatal(err)
	}
	st, err := ch.Wait(context.Background())
	if err != nil || st.ExitCode() != 0 {
		t.Fatalf("%q: status %d, %v", argv, st.ExitCode(), err)
	}
	v, err := c.Read()
	if err != nil {
		t.Fatalf("reading the counter: %v", err)
	}
	if v.Enabled == 0 {
		t.Fatalf("%q: the counter was never enabled: enable_on_exec did not fire", argv)
	}
	return v.Raw
}

func onExecAttr(config uint64) perfevent.Attr {
	return perfevent.Attr{Type: perfevent.TypeSoftware, Config: config, Disabled: true, Inherit: true,
		EnableOnExec: true, ReadFormat: perfevent.FormatTotalTimeEnabled | perfevent.FormatTotalTimeRunning}
}

// perfStat returns `perf stat -x, -e EVENT argv...`'s count.
func perfStat(t *testing.T, event string, argv ...string) float64 {
	t.Helper()
	out, err := exec.Command("perf", append([]string{"stat", "-x,", "-e", event, "--"}, argv...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("perf stat: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, ",")
		if len(f) > 2 && f[2] == event {
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				t.Fatalf("perf stat line %q", l)
			}
			return v
		}
	}
	t.Fatalf("no %s in perf stat output:\n%s", event, out)
	return 0
}

// The shim execs the workload on the thread the counter is attached to: page faults of
// /bin/true are counted from its exec on, and agree with perf stat's (which forks and
// execs the same way) within 1% on the mean of 80 runs (single runs vary from 47 to 51).
func TestEnableOnExecPageFaults(t *testing.T) {
	testenv.Tool(t, "perf")
	const runs = 80
	var ours, theirs float64
	for i := 0; i < runs; i++ {
		n := countOnExec(t, perfevent.SWPageFaults, "true")
		if n == 0 {
			t.Fatal("0 page faults: the exec did not happen on the counted thread")
		}
		ours += float64(n)
		theirs += perfStat(t, "page-faults", "true")
	}
	ours, theirs = ours/runs, theirs/runs
	// Within 1% or one fault, as internal/cli's TestPageFaultsMatchPerf: now and then pmc's
	// launches average half a fault more than perf's on /bin/true (49.3 vs 48.8 over 80 runs
	// on 2026-11-25, under load); the cause is not found.
	if d := (ours - theirs) / theirs; (d > 0.01 || d < -0.01) && math.Abs(ours-theirs) > 1 {
		t.Errorf("page-faults of true: pmc mean %.1f, perf stat mean %.1f (%+.2f%%; want within 1%% or one fault)", ours, theirs, 100*d)
	} else {
		t.Logf("page-faults of true: pmc mean %.1f, perf stat mean %.1f", ours, theirs)
	}
}

// Counting starts at exec, not at Start: a shim kept waiting 50 ms before Exec adds no
// task-clock, and a workload that burns CPU is counted in full (including its children,
// through inherit).
func TestEnableOnExecTaskClock(t *testing.T) {
	ns := countOnExec(t, perfevent.SWTaskClock, "sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; /bin/true")
	if ns < uint64(20*time.Millisecond) {
		t.Errorf("task-clock %v for a busy shell loop", time.Duration(ns))
	}
	path, _ := LookPath("true")
	ch, err := Start(Cmd{Path: path, Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := perfevent.Open("task-clock", onExecAttr(perfevent.SWTaskClock), ch.Pid(), perfevent.AnyCPU, nil)
	if err != nil {
		ch.Kill()
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(50 * time.Millisecond)
	ch.Exec()
	st, _ := ch.Wait(context.Background())
	v, _ := c.Read()
	tc := time.Duration(v.Raw)
	if tc == 0 || tc > 5*time.Millisecond || tc > st.Elapsed {
		t.Errorf("task-clock of true after a 50 ms wait: %v (elapsed %v)", tc, st.Elapsed)
	}
}

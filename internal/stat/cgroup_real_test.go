package stat

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"testing"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestSessionCgroupReal: a system-wide session on one cgroup (PERF_FLAG_PID_CGROUP) counts the
// task-clock of the busy loop run inside it (its CPU time from rusage, within 5% + 20 ms) and
// nothing of the same loop run outside it; every fd, the cgroup's included, is released.
func TestSessionCgroupReal(t *testing.T) {
	mount, err := host.Live().Cgroup2Mount()
	dir := testenv.Cgroup(t, fmt.Sprintf("pmc-stat-test-%d", os.Getpid()), mount, err)
	loop := testenv.Workload(t, "loop")
	testenv.CheckFDs(t)
	evs := groupEvents([]string{"task-clock"})
	evs[0].Attr.Config = perfevent.SWTaskClock
	evs[0].Attr.Disabled = true
	req := &Request{Mode: System, Cgroup: dir, Events: evs, Repeat: 1}
	s, err := Kernel{Machine: host.Live()}.Begin(context.Background(), req, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	outside := exec.Command(loop, "0300000000")
	if err := outside.Run(); err != nil {
		t.Fatal(err)
	}
	argv := testenv.InCgroup(dir, loop, "0300000000")
	inside := exec.Command(argv[0], argv[1:]...)
	if err := inside.Run(); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	var ns uint64
	for _, r := range rs {
		if r.Err != nil {
			t.Fatalf("cpu %d: %v", r.CPU, r.Err)
		}
		ns += r.Value.Raw
	}
	cpu := inside.ProcessState.UserTime() + inside.ProcessState.SystemTime()
	got, want := float64(ns)/1e9, cpu.Seconds()
	if math.Abs(got-want) > 0.05*want+0.02 {
		t.Errorf("cgroup task-clock %.3fs, the loop in it used %.3fs of CPU (outside it: %.3fs)", got, want,
			(outside.ProcessState.UserTime() + outside.ProcessState.SystemTime()).Seconds())
	}
	t.Logf("cgroup task-clock %.3fs, loop CPU time %.3fs", got, want)
}

package stat

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
)

// TestSessionFDLimitReal: a 40-member software group attached to a process under a lowered
// RLIMIT_NOFILE fails with EMFILE part-way, and the session leaves no fd open (22 were left
// before the session owned each counter as soon as it was opened).
func TestSessionFDLimitReal(t *testing.T) {
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	names := make([]string, 40)
	for i := range names {
		names[i] = fmt.Sprintf("page-faults#%d", i)
	}
	evs := groupEvents(names)
	for i := range evs {
		evs[i].Attr.Config = perfevent.SWPageFaults
		evs[i].Attr.Disabled = evs[i].Leader
	}
	req := &Request{Mode: Attach, PIDs: []int{sleep.Process.Pid}, Events: evs, Repeat: 1}

	testenv.CheckFDs(t)
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	low := lim
	low.Cur = uint64(testenv.OpenFDs(t) + 20)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	_, err := Kernel{Machine: host.Live()}.Begin(context.Background(), req, 0)
	unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
	if !errors.Is(err, perfevent.ErrTooManyFiles) {
		t.Fatalf("err %v, want too many open files", err)
	}
}

// TestSessionLaunchFDs: a launched run (shim, pipes, pidfd, counters) releases every fd,
// when it runs to the end and when its command cannot be found.
func TestSessionLaunchFDs(t *testing.T) {
	testenv.CheckFDs(t)
	evs := groupEvents([]string{"task-clock", "page-faults"})
	evs[0].Attr.Config, evs[1].Attr.Config = perfevent.SWTaskClock, perfevent.SWPageFaults
	evs[0].Attr.Disabled, evs[0].Attr.EnableOnExec = true, true
	req := &Request{Mode: Launch, Command: []string{"true"}, Events: evs, Repeat: 1}
	res, err := Measure(context.Background(), Kernel{Machine: host.Live()}, req, Options{})
	if err != nil || len(res.Runs) != 1 || res.Runs[0].Counts[1].Raw == 0 {
		t.Fatalf("run: %v %+v", err, res)
	}
	req.Command = []string{"/nonexistent/command"}
	if _, err := Measure(context.Background(), Kernel{Machine: host.Live()}, req, Options{}); err == nil {
		t.Fatal("a missing command ran")
	}
}

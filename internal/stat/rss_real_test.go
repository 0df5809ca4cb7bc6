package stat

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestMaxRSSAgainstGNUTime: the peak RSS pmc reports is the workload's own, within 5% or
// 256 KiB of GNU time's on programs that touch 0.5 MiB to 1 GiB. With the tiny launch shim
// (package launch/tiny) every peak is known; with pmc re-executed as the shim, a workload
// that stayed below what that launcher itself used (the kernel keeps a process's high-water
// mark across exec, and the launcher's includes pmc's) gets no peak, only a ceiling that GNU
// time's must not exceed. Before, every small program showed ~18 MiB.
func TestMaxRSSAgainstGNUTime(t *testing.T) {
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("GNU time (/usr/bin/time) not installed: scripts/deps.sh installs it")
	}
	phases := testenv.Workload(t, "phases")
	tinyErr := launch.TinyShim()
	t.Logf("tiny launch shim: %v", tinyErr)
	evs := groupEvents([]string{"task-clock"})
	evs[0].Attr.Config = perfevent.SWTaskClock
	evs[0].Attr.Disabled, evs[0].Attr.EnableOnExec = true, true
	for _, kb := range []int{512, 4 << 10, 32 << 10, 256 << 10, 1 << 20} {
		args := []string{phases, "--mode", "walk", "--walk", strconv.Itoa(kb), "--pairs", "1", "--spin", "0", "--calls", "0"}
		out, err := exec.Command(gnuTime, append([]string{"-f", "%M"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("time %v: %v\n%s", args, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		ref, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		if err != nil {
			t.Fatalf("GNU time's output %q: %v", out, err)
		}
		req := &Request{Mode: Launch, Command: args, Events: evs, Repeat: 1}
		res, err := Measure(context.Background(), Kernel{}, req, Options{})
		if err != nil || len(res.Runs) != 1 {
			t.Fatalf("%d KiB: %v", kb, err)
		}
		run := res.Runs[0]
		t.Logf("touches %7d KiB: GNU time %7d KiB, pmc %7d KiB (unknown, at most %d KiB)", kb, ref, run.MaxRSSKB, run.MaxRSSBelowKB)
		switch {
		case run.MaxRSSKB <= 0 && tinyErr == nil:
			t.Errorf("%d KiB: no peak from the tiny shim's launch", kb)
		case run.MaxRSSKB > 0:
			if d := run.MaxRSSKB - ref; d < 0 && -d > max(ref/20, 256) || d > max(ref/20, 256) {
				t.Errorf("%d KiB: pmc's peak %d KiB, GNU time's %d: off by %d KiB (more than 5%% and 256 KiB)", kb, run.MaxRSSKB, ref, d)
			}
		case run.MaxRSSBelowKB <= 0:
			t.Errorf("%d KiB: no peak and no ceiling", kb)
		case ref > run.MaxRSSBelowKB:
			t.Errorf("%d KiB: pmc says the peak is at most %d KiB, GNU time measured %d", kb, run.MaxRSSBelowKB, ref)
		}
	}
}

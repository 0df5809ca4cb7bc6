package stat

import (
	"os"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// Hold opens one disabled counter on pmc itself per keyed software event (page-faults twice
// and task-clock hold one counter, page-faults only), and its release closes them; the
// runs' counts do not change.
func TestHoldSoftware(t *testing.T) {
	testenv.CheckFDs(t)
	evs := groupEvents([]string{"page-faults", "task-clock", "page-faults:u"})
	evs[0].Attr.Config = perfevent.SWPageFaults
	evs[1].Attr.Config = perfevent.SWTaskClock
	evs[2].Attr.Config = perfevent.SWPageFaults
	before := perfFDs(t)
	release := Kernel{}.Hold(evs)
	held := perfFDs(t) - before
	release()
	if after := perfFDs(t) - before; after != 0 {
		t.Errorf("%d counters left open after release", after)
	}
	if held == 0 {
		c, err := perfevent.Open("page-faults", perfevent.Attr{Type: perfevent.TypeSoftware,
			Config: perfevent.SWPageFaults, Disabled: true, ExcludeKernel: true}, 0, -1, nil)
		if err != nil {
			t.Skipf("perf_event_open refused here: %v", err)
		}
		c.Close()
	}
	if held != 1 {
		t.Errorf("held %d counters, want 1 (page-faults)", held)
	}
}

// perfFDs counts this process's perf_event fds.
func perfFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(target, "perf_event") {
			n++
		}
	}
	return n
}

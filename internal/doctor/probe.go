package doctor

import (
	"errors"
	"github.com/pmc-tools/pmc/internal/launch"
	"runtime"
	"time"

	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Probes are the results of perf_event_open attempts on this process: "" when the event
// opened, else the errno's name ("ENOENT", "EACCES", "ENOSYS"...). Tests record them as JSON.
type Probes struct {
	Software string            `json:"software"` // cpu-clock
	Hardware string            `json:"hardware"` // instructions, user space only
	Generic  map[string]string `json:"generic"`  // perf's generic hardware names, user space only
	// Counters is the largest group of general events the kernel accepted (0: not measured);
	// CycleCounter: cycles still fitted beside them (a dedicated or fixed cycle counter).
	Counters     int  `json:"counters"`
	CycleCounter bool `json:"cycle_counter"`
	// Clock is cycles (user space) per nanosecond of task-clock over a few milliseconds of
	// busy work on this thread, in GHz (0: not measured). Counters that open are not always
	// counters that count: an emulator may open a PMU it does not model (QEMU's raspi0 reads
	// 74-606 "GHz").
	Clock float64 `json:"clock_ghz,omitempty"`
	// Launch: LaunchTiny when pmc launches workloads with its tiny shim, else why it
	// re-executes itself instead; "" when not probed.
	Launch string `json:"launch,omitempty"`
}

// LaunchTiny is Probes.Launch when the tiny launch shim runs.
const LaunchTiny = "tiny"

// maxClockGHz is the fastest core clock pmc believes: no CPU runs above it.
const maxClockGHz = 10

// implausible says whether the counters read values no CPU can produce.
func (pr Probes) implausible() bool { return pr.Clock > maxClockGHz }

// measureClock counts cycles and task-clock on this thread over a short busy loop.
func measureClock(cycles perfevent.Attr) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	times := perfevent.FormatTotalTimeEnabled | perfevent.FormatTotalTimeRunning
	cycles.ReadFormat = times
	tc, err := perfevent.Open("task-clock", perfevent.Attr{Type: perfevent.TypeSoftware, Config: perfevent.SWTaskClock, Disabled: true, ReadFormat: times}, 0, -1, nil)
	if err != nil {
		return 0
	}
	defer tc.Close()
	cy, err := perfevent.Open("cycles", cycles, 0, -1, nil)
	if err != nil {
		return 0
	}
	defer cy.Close()
	tc.Enable()
	cy.Enable()
	sink := 0
	for start := time.Now(); time.Since(start) < 3*time.Millisecond; {
		for i := range 10000 {
			sink += i ^ sink
		}
	}
	cy.Disable()
	tc.Disable()
	c, cerr := cy.Read()
	t, terr := tc.Read()
	rc := result.Reading{Raw: c.Raw, Enabled: c.Enabled, Running: c.Running}
	if cerr != nil || terr != nil || rc.Status() != result.Counted || t.Raw == 0 || sink == 1 {
		return 0
	}
	return rc.Scaled() / float64(t.Raw)
}

// genericNames are the generic hardware events pmc doctor tries, in perf's order.
var genericNames = []struct {
	name   string
	config uint64
}{
	{"cycles", perfevent.HWCPUCycles},
	{"instructions", perfevent.HWInstructions},
	{"cache-references", perfevent.HWCacheReferences},
	{"cache-misses", perfevent.HWCacheMisses},
	{"branches", perfevent.HWBranchInstructions},
	{"branch-misses", perfevent.HWBranchMisses},
}

// maxProbeGroup bounds the counter measurement (no PMU has more general counters).
const maxProbeGroup = 32

// ProbeKernel opens (and closes at once) a few counters on this process.
func ProbeKernel() Probes {
	var p Probes
	p.Launch = LaunchTiny
	if err := launch.TinyShim(); err != nil {
		p.Launch = err.Error()
	}
	p.Software = tryOpen(perfevent.Attr{Type: perfevent.TypeSoftware, Config: perfevent.SWCPUClock, Disabled: true})
	hw := func(config uint64) perfevent.Attr {
		return perfevent.Attr{Type: perfevent.TypeHardware, Config: config, Disabled: true, ExcludeKernel: true, ExcludeHV: true}
	}
	p.Hardware = tryOpen(hw(perfevent.HWInstructions))
	p.Generic = map[string]string{}
	for _, g := range genericNames {
		p.Generic[g.name] = tryOpen(hw(g.config))
	}
	if p.Hardware != "" {
		return p
	}
	// Fill a group with a general event until the kernel refuses it, then try cycles beside.
	filler := hw(perfevent.HWBranchInstructions)
	if p.Generic["branches"] != "" {
		filler = hw(perfevent.HWInstructions)
	}
	// The members are enabled (they count this process for a moment): the ARM and x86
	// drivers leave a disabled sibling (state OFF, no enable_on_exec) out of their group
	// check, so a disabled group of any size "fits" (QEMU's arm64 guest: 32 of 6 counters).
	filler.Disabled = false
	var group []*perfevent.Counter
	defer func() {
		for i := len(group) - 1; i >= 0; i-- {
			group[i].Close()
		}
	}()
	for len(group) < maxProbeGroup {
		var leader *perfevent.Counter
		if len(group) > 0 {
			leader = group[0]
		}
		c, err := perfevent.Open("probe", filler, 0, -1, leader)
		if err != nil {
			break
		}
		group = append(group, c)
	}
	p.Counters = len(group)
	if p.Generic["cycles"] == "" {
		p.Clock = measureClock(hw(perfevent.HWCPUCycles))
	}
	if len(group) > 0 && p.Generic["cycles"] == "" {
		cyc := hw(perfevent.HWCPUCycles)
		cyc.Disabled = false
		if c, err := perfevent.Open("cycles", cyc, 0, -1, group[0]); err == nil {
			p.CycleCounter = true
			c.Close()
		}
	}
	return p
}

func tryOpen(a perfevent.Attr) string {
	c, err := perfevent.Open("probe", a, 0, -1, nil)
	if err == nil {
		c.Close()
		return ""
	}
	var oe *perfevent.OpenError
	if errors.As(err, &oe) {
		if n := unix.ErrnoName(oe.Errno); n != "" {
			return n
		}
		return oe.Errno.Error()
	}
	return err.Error()
}

package statfmt

import (
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// The Results the golden files are written from, built by hand. The software-event cases
// carry the numbers of real perf stat runs on the development VM (testdata/perf/ holds what
// perf printed for them; perf_test.go checks that pmc prints the same); the hardware cases
// carry numbers of the shape the emulated ARM PMU gives (see docs/platform-notes), since
// this machine has no hardware PMU.

// Encodings of the events used below (perf_event_attr type/config).
var (
	encTaskClock = result.Encoding{PMU: "software", Type: 1, Config: 1}
	encCPUClock  = result.Encoding{PMU: "software", Type: 1, Config: 0}
	encPageFault = result.Encoding{PMU: "software", Type: 1, Config: 2}
	encCtxSwitch = result.Encoding{PMU: "software", Type: 1, Config: 3}
	encMigration = result.Encoding{PMU: "software", Type: 1, Config: 4}
	encCycles    = result.Encoding{Type: 0, Config: 0}
	encInsns     = result.Encoding{Type: 0, Config: 1}
	encBranches  = result.Encoding{Type: 0, Config: 4}
	encBrMisses  = result.Encoding{Type: 0, Config: 5}
)

const noPMU = "no hardware PMU: the kernel refused the event (ENOENT)"

// sw is a software count on a task: it runs whenever the task runs, so enabled == running
// == the task's own task-clock.
func sw(event string, group int, enc result.Encoding, raw, taskNs uint64) result.Count {
	c := result.Count{Event: event, Group: group, CPU: -1, Status: result.Counted, Raw: raw,
		Scaled: float64(raw), Enabled: taskNs, Running: taskNs, Encoding: enc}
	if event == "task-clock" || event == "cpu-clock" {
		c.Unit = "msec"
	}
	return c
}

// hw is a hardware count that ran for running of enabled ns and was scaled up.
func hw(event string, group int, enc result.Encoding, raw, enabled, running uint64) result.Count {
	scaled := float64(raw)
	if running > 0 && running < enabled {
		scaled = float64(raw) * float64(enabled) / float64(running)
	}
	return result.Count{Event: event, Group: group, CPU: -1, Status: result.Counted, Raw: raw,
		Scaled: scaled, Enabled: enabled, Running: running, Encoding: enc}
}

func unsupported(event string, group int, enc result.Encoding) result.Count {
	return result.Count{Event: event, Group: group, CPU: -1, Status: result.NotSupported,
		Encoding: enc, Error: noPMU}
}

// finish fills the Summary and the mean times with package stat's own Summarize, so the
// writers are tested on exactly what pmc stat hands them.
func finish(r *result.Stat) *result.Stat {
	r.Schema = result.SchemaVersion
	if r.Repeat == 0 {
		r.Repeat = len(r.Runs)
	}
	result.Summarize(r)
	return r
}

// The metrics perf prints for software events, computed from the counts as package
// metrics does: CPUs utilized = task-clock / wall time, rates = count / task-clock.
func cpusUtilized(event string, cpu int, clockNs, elapsedSec float64) result.Metric {
	return result.Metric{Name: "cpus_utilized", Value: clockNs / 1e9 / elapsedSec, Unit: "CPUs utilized",
		Event: event, CPU: cpu, Together: true, Valid: true}
}

func perSec(event string, cpu int, count, clockNs float64) result.Metric {
	return result.Metric{Name: strings.ReplaceAll(event, "-", "_") + "_per_sec", Value: count / (clockNs / 1e9), Unit: "/sec",
		Event: event, CPU: cpu, Together: true, Valid: true}
}

// softwareMetrics are perf's default metrics for the summary of a software-event Result.
func softwareMetrics(r *result.Stat) []result.Metric {
	var clock float64
	for _, s := range r.Summary {
		if s.Event == "task-clock" {
			clock = s.Mean
		}
	}
	var ms []result.Metric
	for _, s := range r.Summary {
		switch {
		case s.Status != result.Counted:
		case s.Event == "task-clock":
			ms = append(ms, cpusUtilized(s.Event, s.CPU, s.Mean, r.ElapsedSec))
		case s.Encoding.PMU == "software" && clock > 0:
			ms = append(ms, perSec(s.Event, s.CPU, s.Mean, clock))
		}
	}
	return ms
}

// caseDefault is `perf stat true` (testdata/perf/default.txt).
func caseDefault() *result.Stat {
	const tc = 600430
	r := finish(&result.Stat{Command: []string{"true"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: 0.001277985, UserSec: 0.001382, SysSec: 0, Counts: []result.Count{
			sw("task-clock", 0, encTaskClock, tc, tc),
			sw("context-switches", 1, encCtxSwitch, 0, tc),
			sw("cpu-migrations", 2, encMigration, 0, tc),
			sw("page-faults", 3, encPageFault, 51, tc),
			unsupported("cycles", 4, encCycles),
			unsupported("instructions", 5, encInsns),
			unsupported("branches", 6, encBranches),
			unsupported("branch-misses", 7, encBrMisses),
		}}}})
	r.Metrics = softwareMetrics(r)
	return r
}

// caseUnsupported is `perf stat -e task-clock,instructions true`.
func caseUnsupported() *result.Stat {
	const tc = 751820
	r := finish(&result.Stat{Command: []string{"true"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: 0.001280781, UserSec: 0.001379, Counts: []result.Count{
			sw("task-clock", 0, encTaskClock, tc, tc),
			unsupported("instructions", 1, encInsns),
		}}}})
	r.Metrics = softwareMetrics(r)
	return r
}

// caseRepeat5 is `perf stat -r 5 true`, per-run counts and times from perf stat -v --table
// (testdata/perf/repeat5.verbose.txt). rusage is not in that capture and is left 0.
func caseRepeat5() *result.Stat {
	tcs := []uint64{579060, 528827, 499322, 568401, 488983}
	pfs := []uint64{49, 50, 47, 48, 49}
	els := []float64{0.0012454, 0.0011082, 0.0010409, 0.0011037, 0.0010116}
	r := &result.Stat{Command: []string{"true"}, Mode: "launch", Scaled: true, Repeat: 5, Backend: "perf_event"}
	for i := range tcs {
		r.Runs = append(r.Runs, result.Run{Index: i, ElapsedSec: els[i], Counts: []result.Count{
			sw("task-clock", 0, encTaskClock, tcs[i], tcs[i]),
			sw("context-switches", 1, encCtxSwitch, 0, tcs[i]),
			sw("cpu-migrations", 2, encMigration, 0, tcs[i]),
			sw("page-faults", 3, encPageFault, pfs[i], tcs[i]),
			unsupported("cycles", 4, encCycles),
			unsupported("instructions", 5, encInsns),
			unsupported("branches", 6, encBranches),
			unsupported("branch-misses", 7, encBrMisses),
		}})
	}
	finish(r)
	r.Metrics = softwareMetrics(r)
	return r
}

// caseRepeat3 is `perf stat -x, -r 3 -e task-clock,page-faults,instructions true`, per-run
// counts from perf stat -v. The wall times are not in that capture; these are typical of
// the VM for `true` (about 2 ms).
func caseRepeat3() *result.Stat {
	tcs := []uint64{560466, 527804, 507175}
	pfs := []uint64{49, 51, 47}
	els := []float64{0.002391, 0.002204, 0.002252}
	r := &result.Stat{Command: []string{"true"}, Mode: "launch", Scaled: true, Repeat: 3, Backend: "perf_event"}
	for i := range tcs {
		r.Runs = append(r.Runs, result.Run{Index: i, ElapsedSec: els[i], Counts: []result.Count{
			sw("task-clock", 0, encTaskClock, tcs[i], tcs[i]),
			sw("page-faults", 1, encPageFault, pfs[i], tcs[i]),
			unsupported("instructions", 2, encInsns),
		}})
	}
	finish(r)
	r.Metrics = softwareMetrics(r)
	return r
}

// caseCSVDefault is `perf stat -x, -e task-clock,page-faults true`.
func caseCSVDefault() *result.Stat {
	const tc = 826172
	r := finish(&result.Stat{Command: []string{"true"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: 0.001930262, Counts: []result.Count{
			sw("task-clock", 0, encTaskClock, tc, tc),
			sw("page-faults", 1, encPageFault, 50, tc),
		}}}})
	r.Metrics = softwareMetrics(r)
	return r
}

// ivCase is an interval: time stamp, task-clock and page-faults deltas, 0 ns = not counted.
type ivCase struct {
	t      float64
	tc, pf uint64
}

// intervalResult builds a -I run of `sleep`: intervals in which the sleeping task never ran
// have time_running 0 and are not counted.
func intervalResult(cmd []string, ivs []ivCase) *result.Stat {
	r := &result.Stat{Command: cmd, Mode: "launch", Scaled: true, Backend: "perf_event"}
	var tcSum, pfSum uint64
	for _, iv := range ivs {
		var counts []result.Count
		if iv.tc == 0 {
			counts = []result.Count{
				{Event: "task-clock", Group: 0, CPU: -1, Status: result.NotCounted, Unit: "msec", Encoding: encTaskClock},
				{Event: "page-faults", Group: 1, CPU: -1, Status: result.NotCounted, Encoding: encPageFault},
			}
		} else {
			counts = []result.Count{sw("task-clock", 0, encTaskClock, iv.tc, iv.tc), sw("page-faults", 1, encPageFault, iv.pf, iv.tc)}
		}
		r.Intervals = append(r.Intervals, result.Interval{TimeSec: iv.t, Counts: counts})
		tcSum += iv.tc
		pfSum += iv.pf
	}
	r.Runs = []result.Run{{ElapsedSec: ivs[len(ivs)-1].t, Counts: []result.Count{
		sw("task-clock", 0, encTaskClock, tcSum, tcSum), sw("page-faults", 1, encPageFault, pfSum, tcSum)}}}
	finish(r)
	r.Metrics = softwareMetrics(r)
	return r
}

// intervalMetrics are the metrics of interval i: CPUs utilized over the interval's length.
func intervalMetrics(r *result.Stat, i int) []result.Metric {
	iv := r.Intervals[i]
	length := iv.TimeSec
	if i > 0 {
		length -= r.Intervals[i-1].TimeSec
	}
	tc, pf := iv.Counts[0], iv.Counts[1]
	if tc.Status != result.Counted {
		return nil
	}
	return []result.Metric{
		cpusUtilized("task-clock", -1, tc.Scaled, length),
		perSec("page-faults", -1, pf.Scaled, tc.Scaled),
	}
}

// caseInterval is `perf stat -e task-clock,page-faults -I 100 sleep 0.35`.
func caseInterval() *result.Stat {
	return intervalResult([]string{"sleep", "0.35"}, []ivCase{
		{0.100174369, 1235700, 74}, {0.200576531, 0, 0}, {0.300849942, 0, 0}, {0.359056993, 58312, 0}})
}

// caseCSVInterval is `perf stat -x, -e task-clock,page-faults -I 100 sleep 0.25`.
func caseCSVInterval() *result.Stat {
	return intervalResult([]string{"sleep", "0.25"}, []ivCase{
		{0.100481880, 1274830, 74}, {0.201654653, 0, 0}, {0.252510226, 64430, 0}})
}

// perCPUResult is `perf stat -A -a -e cpu-clock sleep S`: one cpu-clock per CPU.
func perCPUResult(elapsed float64, perCPU ...uint64) *result.Stat {
	var counts []result.Count
	for cpu, ns := range perCPU {
		c := sw("cpu-clock", 0, encCPUClock, ns, ns)
		c.CPU = cpu
		counts = append(counts, c)
	}
	r := finish(&result.Stat{Command: []string{"sleep", "0.1"}, Mode: "system", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: elapsed, Counts: counts}}})
	for _, s := range r.Summary {
		r.Metrics = append(r.Metrics, cpusUtilized(s.Event, s.CPU, s.Mean, elapsed))
	}
	return r
}

// casePerCPU is `perf stat -A -a -e cpu-clock sleep 0.1`.
func casePerCPU() *result.Stat { return perCPUResult(0.101969657, 102013000, 102008750) }

// caseCSVPerCPU is `perf stat -x';' -A -a -e cpu-clock sleep 0.05`.
func caseCSVPerCPU() *result.Stat {
	r := perCPUResult(0.052847, 52923304, 52877937)
	r.Command = []string{"sleep", "0.05"}
	return r
}

// armRun is a run of the 2-instruction loop workload (100M iterations) on the emulated
// Cortex-A57 under -icount shift=0: instructions exact, cycles == instructions.
const (
	armInsns   = 200_000_015
	armEnabled = 2_118_407_552 // ns the counters were enabled (TCG is slow)
)

// caseMultiplexed: eight events on a PMU with six general counters. cycles and
// instructions share a group and ran throughout; the other six were rotated and ran 75% of
// the time, so their counts are scaled estimates. The L1D ratio comes from two events that
// were scheduled apart.
func caseMultiplexed() *result.Stat {
	const run = armEnabled / 4 * 3
	grp := func(c result.Count, leader bool) result.Count { c.Leader = leader; return c }
	r := finish(&result.Stat{Command: []string{"./loop", "100000000"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: 2.131944371, UserSec: 2.121337, SysSec: 0.003998, Counts: []result.Count{
			grp(hw("cycles", 0, result.Encoding{PMU: "armv8_pmuv3_0", Type: 0, Config: 0, Raw: "r11 (CPU_CYCLES)"}, armInsns, armEnabled, armEnabled), true),
			hw("instructions", 0, result.Encoding{PMU: "armv8_pmuv3_0", Type: 0, Config: 1, Raw: "r08 (INST_RETIRED)"}, armInsns, armEnabled, armEnabled),
			hw("L1-dcache-loads", 1, result.Encoding{PMU: "armv8_pmuv3_0", Type: 3, Config: 0, Raw: "r04 (L1D_CACHE)"}, 75_000_011, armEnabled, run),
			hw("L1-dcache-load-misses", 2, result.Encoding{PMU: "armv8_pmuv3_0", Type: 3, Config: 0x10000, Raw: "r03 (L1D_CACHE_REFILL)"}, 1_499_985, armEnabled, run),
			hw("branches", 3, result.Encoding{PMU: "armv8_pmuv3_0", Type: 0, Config: 4, Raw: "r12 (BR_PRED)"}, 75_000_002, armEnabled, run),
			hw("branch-misses", 4, result.Encoding{PMU: "armv8_pmuv3_0", Type: 0, Config: 5, Raw: "r10 (BR_MIS_PRED)"}, 18, armEnabled, run),
			hw("r13", 5, result.Encoding{PMU: "armv8_pmuv3_0", Type: 4, Config: 0x13, Raw: "r13 (MEM_ACCESS)"}, 75_000_040, armEnabled, run),
			hw("r16", 6, result.Encoding{PMU: "armv8_pmuv3_0", Type: 4, Config: 0x16, Raw: "r16 (L2D_CACHE)"}, 1_500_007, armEnabled, run),
		}}}})
	s := r.Summary
	r.Metrics = []result.Metric{
		{Name: "ipc", Value: s[1].Mean / s[0].Mean, Unit: "insn per cycle", Event: "instructions", CPU: -1, Together: true, Valid: true},
		{Name: "l1d_miss_ratio", Value: 100 * s[3].Mean / s[2].Mean, Unit: "%", Event: "L1-dcache-load-misses", CPU: -1, Valid: true,
			Warning: "not measured together: L1-dcache-load-misses ran 75.00% (group 2), L1-dcache-loads ran 75.00% (group 1)"},
		{Name: "branch_miss_ratio", Value: 100 * s[5].Mean / s[4].Mean, Unit: "%", Event: "branch-misses", CPU: -1, Valid: true,
			Warning: "not measured together: branch-misses ran 75.00% (group 4), branches ran 75.00% (group 3)"},
	}
	return r
}

// caseNotCounted: on a Cortex-A7 (4 general counters + cycle counter), a group of five
// general events with a non-cycles leader opens but never runs: every member reads
// time_running 0 and is "not counted", and metrics over them are undefined.
func caseNotCounted() *result.Stat {
	const enabled = 1_044_118_290
	pmu := "armv7_cortex_a7"
	nc := func(event string, cfg uint64, raw string, leader bool) result.Count {
		return result.Count{Event: event, Group: 1, Leader: leader, CPU: -1, Status: result.NotCounted, Reason: result.NeverRan,
			Enabled: enabled, Running: 0, Encoding: result.Encoding{PMU: pmu, Type: 0, Config: cfg, Raw: raw}}
	}
	r := finish(&result.Stat{Command: []string{"./loop", "10000000"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: 1.052773402, UserSec: 1.041112, SysSec: 0.007981, Counts: []result.Count{
			hw("cycles", 0, result.Encoding{PMU: pmu, Type: 0, Config: 0, Raw: "r11 (CPU_CYCLES)"}, 20_000_015, enabled, enabled),
			nc("L1-dcache-loads", 0x4, "r04 (L1D_CACHE)", true),
			nc("L1-dcache-load-misses", 0x3, "r03 (L1D_CACHE_REFILL)", false),
			nc("instructions", 0x8, "r08 (INST_RETIRED)", false),
			nc("branches", 0x12, "r12 (BR_PRED)", false),
			nc("branch-misses", 0x10, "r10 (BR_MIS_PRED)", false),
		}}}})
	r.Metrics = []result.Metric{
		{Name: "ipc", Unit: "insn per cycle", Event: "instructions", CPU: -1,
			Warning: "instructions <not counted>: it never got a counter"},
		{Name: "l1d_miss_ratio", Unit: "%", Event: "L1-dcache-load-misses", CPU: -1,
			Warning: "L1-dcache-load-misses <not counted>: it never got a counter"},
	}
	return r
}

// caseMetricsFlagged is the Cortex-A5 seed's story: a multiplexed run on a single-issue
// core where the naive arithmetic gives "12.75 insn per cycle" and "191% of all branches".
// pmc prints the numbers and says why they cannot be right. One metric (CPUs utilized)
// belongs to an event that was not asked for and gets a line of its own.
func caseMetricsFlagged() *result.Stat {
	const enabled = 16_581_920_114
	pmu := "armv7_cortex_a5"
	r := finish(&result.Stat{Command: []string{"./naive"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: 16.604132551, UserSec: 16.52, SysSec: 0.04, Counts: []result.Count{
			hw("cycles", 0, result.Encoding{PMU: pmu, Type: 0, Config: 0}, 1_452_500_000, enabled, enabled/8),
			hw("instructions", 1, result.Encoding{PMU: pmu, Type: 0, Config: 1}, 74_077_500_000, enabled, enabled/2),
			hw("branches", 2, result.Encoding{PMU: pmu, Type: 0, Config: 4}, 9_000_000_000, enabled, enabled/2),
			hw("branch-misses", 3, result.Encoding{PMU: pmu, Type: 0, Config: 5}, 8_595_000_000, enabled, enabled/4),
		}}}})
	s := r.Summary
	apart := "not measured together: instructions ran 50.00% (group 1), cycles ran 12.50% (group 0)"
	r.Metrics = []result.Metric{
		{Name: "ipc", Value: s[1].Mean / s[0].Mean, Unit: "insn per cycle", Event: "instructions", CPU: -1, Valid: true,
			Warning: "implausible: 12.75 instructions per cycle on a core that issues at most 1; " + apart},
		{Name: "cpi", Value: s[0].Mean / s[1].Mean, Unit: "cycles per insn", Event: "instructions", CPU: -1, Valid: true,
			Warning: "implausible: 0.08 cycles per instruction on a core that issues at most 1 per cycle; " + apart},
		{Name: "branch_miss_ratio", Value: 100 * s[3].Mean / s[2].Mean, Unit: "%", Event: "branch-misses", CPU: -1, Valid: true,
			Warning: "implausible: 191.00% exceeds 100%; not measured together: branch-misses ran 25.00% (group 3), branches ran 50.00% (group 2)"},
		{Name: "ghz", Value: s[0].Mean / 1e9 / r.ElapsedSec, Unit: "GHz", Event: "cycles", CPU: -1, Together: true, Valid: true,
			Warning: "cycles ran only 12.50% of the time; its scaled count is an extrapolation"},
		{Name: "cpus_utilized", Unit: "CPUs utilized", Event: "task-clock", CPU: -1,
			Warning: "task-clock was not counted; add it to the events"},
	}
	return r
}

// caseSimulated is pmc stat --sim: cachegrind's counts of the naive matmul (size 200, D1
// 8 KiB 4-way), cycles not simulated. Every format must say SIMULATED.
func caseSimulated() *result.Stat {
	const ns = 1_512_000_000
	return finish(&result.Stat{Command: []string{"./matmul-novec", "--order", "ijk", "--size", "200"}, Mode: "launch",
		Scaled: true, Backend: "simulated-cachegrind",
		Runs: []result.Run{{ElapsedSec: 1.512, UserSec: 1.45, SysSec: 0.05, Counts: []result.Count{
			unsupported("cycles", 0, encCycles),
			hw("instructions", 1, encInsns, 57284291, ns, ns),
			hw("L1-dcache-loads", 2, result.Encoding{Type: 3, Config: 0}, 16087321, ns, ns),
			hw("L1-dcache-load-misses", 3, result.Encoding{Type: 3, Config: 0x10000}, 8542595, ns, ns),
		}}},
		Notes: []string{"SIMULATED: the counts come from valgrind's cachegrind simulating caches D1 8192,4,64 (size,ways,line), not from hardware counters"}})
}

package result

import (
	"strconv"
	"strings"
	"time"
)

// SchemaVersion names the JSON schema of Stat (docs/json-schema.md). Bump the suffix on any
// incompatible change; adding fields is compatible.
const SchemaVersion = "pmc.stat/v1"

// SelfSchema names the JSON include/pmc.h writes: pmc.stat/v1's fields, but each run is a
// region of the program (its "regions" name them), not a run of it (docs/json-schema.md).
// Files written before it say pmc.stat/v1 with mode "self".
const SelfSchema = "pmc.self/v1"

// SelfMeasured reports whether r is include/pmc.h's: its runs are regions.
func (r *Stat) SelfMeasured() bool { return r.Schema == SelfSchema || r.Mode == "self" }

// Status says whether a count holds a measured value.
type Status string

const (
	// Counted: the counter ran for part or all of the time; Raw and Scaled are meaningful.
	Counted Status = "counted"
	// NotCounted: the counter opened but never ran (time_running == 0), e.g. a group that
	// could not be scheduled. Raw is 0 but means "no data", never "zero events".
	NotCounted Status = "not-counted"
	// NotSupported: the kernel or hardware refused the event (ENOENT, EOPNOTSUPP, ENODEV...).
	NotSupported Status = "not-supported"
)

// Reason says, as a word a program can test, why a count has no value; Error holds the
// same in a sentence for people. Empty for counted events.
type Reason string

const (
	// Unsupported: the kernel or the hardware has no such event here (ENOENT, EOPNOTSUPP,
	// ENODEV, ENXIO), e.g. every hardware event on a machine without a PMU.
	Unsupported Reason = "unsupported"
	// Permission: perf_event_paranoid or missing capabilities refused the event.
	Permission Reason = "permission"
	// Invalid: the kernel rejected the event's attributes (EINVAL).
	Invalid Reason = "invalid"
	// Busy: another user holds the counter (EBUSY).
	Busy Reason = "busy"
	// GroupTooLarge: its group needs more counters at once than the PMU has.
	GroupTooLarge Reason = "group-too-large"
	// GroupLeader: the leader of its group was refused, and the group with it.
	GroupLeader Reason = "group-leader"
	// NeverRan: the counter opened but never ran (time_running == 0), e.g. multiplexed out.
	NeverRan Reason = "never-ran"
)

// Encoding is the perf_event_attr identity of an event as it was opened.
type Encoding struct {
	PMU     string `json:"pmu,omitempty"`      // sysfs PMU name ("cpu", "armv8_pmuv3_0", "software")
	Type    uint32 `json:"type"`               // perf_event_attr.type
	Config  uint64 `json:"config"`             // perf_event_attr.config
	Config1 uint64 `json:"config1,omitempty"`  // perf_event_attr.config1
	Config2 uint64 `json:"config2,omitempty"`  // perf_event_attr.config2
	Raw     string `json:"resolved,omitempty"` // what a generic name resolved to on this CPU, e.g. "r03 (L1D_CACHE_REFILL)"
}

// Count is one event's reading at the end of a run (or of an interval).
type Count struct {
	Event  string `json:"event"`            // the name as the user wrote it, with modifiers
	Group  int    `json:"group"`            // index of the {..} group; events outside braces get their own index
	Leader bool   `json:"leader,omitempty"` // first event of a multi-event group
	// Planned: pmc's metric planner added the event (a metric's operand, or its copy beside
	// another group's events); the user did not name it. The text, the report and compare
	// print the planner's copies of one event as one row (Merged).
	Planned bool    `json:"planned,omitempty"`
	CPU     int     `json:"cpu"`              // -1 when aggregated over CPUs
	TID     int     `json:"tid,omitempty"`    // --per-thread: the thread counted
	Thread  string  `json:"thread,omitempty"` // --per-thread: perf's "comm-tid" label
	Status  Status  `json:"status"`
	Raw     uint64  `json:"raw"`             // the counter value as read
	Scaled  float64 `json:"scaled"`          // Raw * Enabled / Running (== Raw when not multiplexed or --no-scale)
	Enabled uint64  `json:"time_enabled_ns"` // perf time_enabled
	Running uint64  `json:"time_running_ns"` // perf time_running
	Unit    string  `json:"unit,omitempty"`  // "msec" for task-clock/cpu-clock (Raw is ns), "" for plain counts
	// UnitScale converts Scaled into Unit: 1e-6 for clocks (ns -> msec), the sysfs .scale of
	// an event such as power/energy-pkg/ (-> Joules); 0 or 1 means none.
	UnitScale float64 `json:"unit_scale,omitempty"`
	// Bound: how far Scaled may be from the true count when the counter was multiplexed
	// (Running < Enabled); nil when it ran all the time, or with --no-scale.
	Bound    *Bound   `json:"bound,omitempty"`
	Encoding Encoding `json:"encoding"`
	Reason   Reason   `json:"reason,omitempty"` // why there is no value (Status not counted or not supported)
	Error    string   `json:"error,omitempty"`  // the same in words, with the kernel's error
}

// RunningPct is the share of the enabled time the counter was on the PMU, in percent.
func (c Count) RunningPct() float64 {
	if c.Enabled == 0 {
		return 0
	}
	return 100 * float64(c.Running) / float64(c.Enabled)
}

// Reading is the count's raw value and times, as the kernel gave them.
func (c Count) Reading() Reading { return Reading{Raw: c.Raw, Enabled: c.Enabled, Running: c.Running} }

// Value is what to print: the scaled count, converted to Unit (ns -> msec, sysfs .scale).
func (c Count) Value() float64 { return ToUnit(c.Scaled, c.Unit, c.UnitScale) }

// ToUnit converts a count in the kernel's units to its display unit: by scale when one is
// set, else ns to msec for clocks.
func ToUnit(v float64, unit string, scale float64) float64 {
	switch {
	case scale != 0 && scale != 1:
		return v * scale
	case unit == "msec":
		return v / 1e6
	}
	return v
}

// Run is one measured execution (one of -r N).
type Run struct {
	Index      int     `json:"index"`       // 0-based, warmup runs are not recorded
	ElapsedSec float64 `json:"elapsed_sec"` // wall clock seconds, our own clock (not time_enabled)
	ExitStatus int     `json:"exit_status"` // shell-style: 128+N when killed by signal N
	Signal     string  `json:"signal,omitempty"`
	UserSec    float64 `json:"user_sec"` // rusage of the workload (launch mode)
	SysSec     float64 `json:"sys_sec"`
	// MaxRSSKB is the workload's peak resident set size in KiB, as GNU time reports it (its
	// own and its waited-for descendants'; launch mode); 0 when pmc cannot tell it apart from
	// its launcher's, whose high-water mark the kernel keeps across the exec.
	MaxRSSKB int64 `json:"max_rss_kb,omitempty"`
	// MaxRSSBelowKB: when MaxRSSKB is unknown, the workload's peak is at most this.
	MaxRSSBelowKB int64 `json:"max_rss_below_kb,omitempty"`
	// Stopped: pmc ended the workload with SIGTERM (--duration, --interval-count), as perf's
	// --timeout does; pmc then exits 0, not with the workload's 143.
	Stopped bool `json:"stopped,omitempty"`
	// Abandoned: the workload ignored a terminating signal pmc passed on; pmc stopped waiting
	// after a grace period (or a second signal) and reports the counts up to then.
	Abandoned bool    `json:"abandoned,omitempty"`
	Counts    []Count `json:"counts"`
}

// Interval is one -I delta.
type Interval struct {
	Run     int     `json:"run"`
	TimeSec float64 `json:"time_sec"` // since start
	Counts  []Count `json:"counts"`   // deltas over this interval
}

// Summary aggregates one event over all runs.
type Summary struct {
	Event     string  `json:"event"`
	Group     int     `json:"group"`
	Planned   bool    `json:"planned,omitempty"` // as Count.Planned
	CPU       int     `json:"cpu"`
	TID       int     `json:"tid,omitempty"`    // as Count.TID
	Thread    string  `json:"thread,omitempty"` // as Count.Thread
	Status    Status  `json:"status"`
	Unit      string  `json:"unit,omitempty"`
	UnitScale float64 `json:"unit_scale,omitempty"` // as Count.UnitScale
	Runs      int     `json:"runs"`                 // number of runs with a counted value
	Mean      float64 `json:"mean"`                 // mean of Scaled (in raw units: ns for clocks)
	RawMean   float64 `json:"raw_mean"`             // mean of Raw
	Stddev    float64 `json:"stddev"`               // sample standard deviation of Scaled
	VarPct    float64 `json:"variation_pct"`        // perf's "+- x%": standard error of the mean / mean * 100
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	Enabled   uint64  `json:"time_enabled_ns"` // summed over runs
	Running   uint64  `json:"time_running_ns"` // summed over runs
	// Bound: how far Mean may be from the true mean count, from the runs' bounds (Count.Bound);
	// nil when no run was multiplexed.
	Bound    *Bound   `json:"bound,omitempty"`
	Encoding Encoding `json:"encoding"`
	Reason   Reason   `json:"reason,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Groups lists the groups of the planner's copies of an event pooled into one (Merged);
	// not in JSON, where each copy is its own summary.
	Groups []int `json:"-"`
}

// RunningPct is the share of enabled time the counter ran, summed over runs, in percent.
func (s Summary) RunningPct() float64 {
	if s.Enabled == 0 {
		return 0
	}
	return 100 * float64(s.Running) / float64(s.Enabled)
}

// Stat is everything one `pmc stat` invocation measured (and what include/pmc.h saves). It
// is the one structure every output format (text, JSON, CSV, report) is written from.
type Stat struct {
	Schema  string   `json:"schema"`
	Command []string `json:"command,omitempty"`
	Mode    string   `json:"mode"`               // "launch", "attach", "system"
	PIDs    []int    `json:"pids,omitempty"`     // attach mode
	Threads bool     `json:"threads,omitempty"`  // attach mode with -t: PIDs are thread ids
	CPUs    []int    `json:"cpus,omitempty"`     // system mode CPU list
	AllCPUs bool     `json:"all_cpus,omitempty"` // system mode over every online CPU (-a, not -C)
	Cgroup  string   `json:"cgroup,omitempty"`   // system mode with -G: the cgroup v2 directory counted
	// Aggregation: --per-socket/--per-core: each count with cpu >= 0 is the sum over one
	// socket's or core's CPUs, in the row of its first CPU. Omitted otherwise.
	Aggregation *Aggregation `json:"aggregation,omitempty"`
	Scaled      bool         `json:"scaled"`         // false with --no-scale
	Repeat      int          `json:"repeat"`         // -r: the runs asked for
	Completed   int          `json:"runs_completed"` // the runs measured (fewer when interrupted)
	// Interrupted: the user stopped the measurement (Ctrl-C) before the runs asked for.
	Interrupted bool       `json:"interrupted,omitempty"`
	Backend     string     `json:"backend"` // "perf_event", "fake" or "simulated-cachegrind"
	Runs        []Run      `json:"runs"`
	Summary     []Summary  `json:"summary"`
	Intervals   []Interval `json:"intervals,omitempty"`
	ElapsedSec  float64    `json:"elapsed_sec"` // mean wall time over runs
	ElapsedStd  float64    `json:"elapsed_stddev_sec,omitempty"`
	ExitStatus  int        `json:"exit_status"` // of the last run
	UserSec     float64    `json:"user_sec"`    // mean over runs
	SysSec      float64    `json:"sys_sec"`
	Metrics     []Metric   `json:"metrics,omitempty"`
	// Notes say what pmc changed to count at all, e.g. user space only under
	// perf_event_paranoid; each is one line, printed to stderr too.
	Notes []string `json:"notes,omitempty"`
	// Where, when and by what the result was measured, so that saved results of two
	// machines can be told apart.
	Machine    *Machine `json:"machine,omitempty"`
	Date       string   `json:"date,omitempty"`        // RFC 3339, when the measurement started
	PMCVersion string   `json:"pmc_version,omitempty"` // of the pmc (or pmc.h) that measured
	PMCCommand []string `json:"pmc_command,omitempty"` // pmc's own command line
}

// Machine identifies the machine a result was measured on.
type Machine struct {
	Host   string `json:"host,omitempty"`
	CPU    string `json:"cpu,omitempty"`    // model: the event table's title or cpuinfo's model name
	CPUID  string `json:"cpu_id,omitempty"` // identity: vendor/family/model or MIDR fields
	PMU    string `json:"pmu,omitempty"`    // core PMU and its counters, or "none (...)"
	Kernel string `json:"kernel,omitempty"` // as uname -srvm prints it
	CPUs   int    `json:"cpus,omitempty"`   // online processors
}

// SimulatedPrefix starts the Backend of counts a simulator made (pmc stat --sim): every
// writer labels them SIMULATED.
const SimulatedPrefix = "simulated-"

// Simulated reports whether the counts come from a simulator, not from counters.
func (r *Stat) Simulated() bool { return strings.HasPrefix(r.Backend, SimulatedPrefix) }

// Simulator names the simulator of simulated counts ("cachegrind").
func (r *Stat) Simulator() string { return strings.TrimPrefix(r.Backend, SimulatedPrefix) }

// RunsDone is the number of runs measured: Completed, or the runs listed in a file written
// before that field existed.
func (r *Stat) RunsDone() int {
	if r.Completed > 0 {
		return r.Completed
	}
	return len(r.Runs)
}

// Metric is a value derived from counts (IPC, miss ratios, rates), computed by package metrics.
type Metric struct {
	Name     string  `json:"name"`            // "IPC", "L1D_miss_ratio"
	Asked    bool    `json:"asked,omitempty"` // named by -M or --metric-group (not a default one)
	Value    float64 `json:"value"`
	Unit     string  `json:"unit,omitempty"`    // "insn per cycle", "%", "PTI", "/sec", "GHz"
	Event    string  `json:"event,omitempty"`   // the event row the text output prints it beside
	CPU      int     `json:"cpu"`               // -1 when aggregated
	Together bool    `json:"measured_together"` // all operands were in one group (co-scheduled)
	Valid    bool    `json:"valid"`             // false when an operand was not counted/supported
	Warning  string  `json:"warning,omitempty"` // plausibility problem, e.g. "misses exceed accesses"
	// Bound: how far Value may be off because operands were multiplexed, propagated from
	// their bounds (metrics.Set.Compute); nil when no operand has one.
	Bound *Bound `json:"bound,omitempty"`
	// Spread is the metric computed on each run alone, over the runs (-r N, N > 1, when the
	// runs were kept: JSON, --table, --report); nil otherwise. Value stays the metric of the
	// mean counts.
	Spread *Spread `json:"spread,omitempty"`
}

// Spread is how a value varied over the runs.
type Spread struct {
	Runs   int     `json:"runs"`   // runs in which the value was defined
	Mean   float64 `json:"mean"`   // mean of the per-run values
	Stddev float64 `json:"stddev"` // sample standard deviation (n-1)
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Aggregation says how per-CPU counts were summed (--per-socket, --per-core).
type Aggregation struct {
	By     string      `json:"by"` // "socket" or "core"
	Groups []AggrGroup `json:"groups"`
}

// AggrGroup is one socket or core: perf's id ("S0", "S0-D0-C3") and its CPUs, the first of
// which is the cpu of its counts.
type AggrGroup struct {
	ID   string `json:"id"`
	CPUs []int  `json:"cpus"`
}

// CPULabel is the first column of a per-CPU row: "CPU3", or the socket or core id and the
// number of CPUs summed in it (n is 1 for a plain CPU).
func (r *Stat) CPULabel(cpu int) (label string, n int) {
	if r.Aggregation != nil {
		for _, g := range r.Aggregation.Groups {
			if len(g.CPUs) > 0 && g.CPUs[0] == cpu {
				return g.ID, len(g.CPUs)
			}
		}
	}
	return "CPU" + strconv.Itoa(cpu), 1
}

// Stamp records where (m), when and by what (pmc's version and command line) r was
// measured; a zero started leaves the date out (the fake backend: its output is the same on
// every run).
func (r *Stat) Stamp(m *Machine, started time.Time, version string, command []string) {
	r.Machine = m
	if !started.IsZero() {
		r.Date = started.UTC().Format(time.RFC3339)
	}
	r.PMCVersion = version
	r.PMCCommand = command
}

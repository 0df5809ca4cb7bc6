package compare

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statistics"
)

// Schema names the JSON schema of a Comparison (docs/json-schema.md).
const Schema = "pmc.compare/v1"

// Method names how confidence intervals are computed: Fieller's interval of the ratio of the
// means with Welch–Satterthwaite degrees of freedom (docs/statistics.md).
const Method = "fieller-welch"

// Comparison is everything one pmc compare shows.
type Comparison struct {
	Schema string `json:"schema"`
	// Source: "measured" (pmc ran the commands) or "saved" (results read from files).
	Source      string    `json:"source"`
	Interleaved bool      `json:"interleaved"` // runs alternated A B A B ... (measured only)
	Warmup      int       `json:"warmup"`      // uncounted runs of each command first
	Confidence  float64   `json:"confidence"`  // 0.95
	Method      string    `json:"ci_method"`   // "fieller-welch"
	Commands    []Command `json:"commands"`
	Rows        []Row     `json:"rows"`
	// Differences say how the inputs differ beyond the commands: CPU, kernel, backend, an
	// event's encoding. Printed in the header, never left out.
	Differences []string `json:"differences,omitempty"`
	Notes       []string `json:"notes,omitempty"`
	// Simulated: a command's counts come from a simulator (pmc stat --sim), not from hardware
	// counters; every writer says SIMULATED.
	Simulated bool `json:"simulated,omitempty"`
	// Interrupted: Ctrl-C stopped the measurement; the runs are those measured until then
	// (the run it cut short is listed, marked, and left out of the statistics).
	Interrupted bool `json:"interrupted,omitempty"`
	// TimeoutSec is --timeout: a run still going after this long was ended and failed; 0
	// when runs had no limit.
	TimeoutSec float64 `json:"timeout_sec,omitempty"`
}

// Command is one compared command or saved result, with every run.
type Command struct {
	Label   string          `json:"label"` // "A", "B", ... or --name
	Command []string        `json:"command,omitempty"`
	File    string          `json:"file,omitempty"`    // the saved result it came from
	Machine *result.Machine `json:"machine,omitempty"` // where it ran, as pmc stat --json records it
	Backend string          `json:"backend"`
	// Simulation is the machine a simulator simulated (pmc stat --sim's caches); nil for
	// hardware counts.
	Simulation *Simulation `json:"simulation,omitempty"`
	// SelfMeasured: the runs are regions of a program that measured itself (include/pmc.h),
	// which records no user or system time and no peak RSS.
	SelfMeasured bool `json:"self_measured,omitempty"`
	// Region is the one region of an include/pmc.h file compared (--region); "" otherwise.
	Region string `json:"region,omitempty"`
	Runs   []Run  `json:"runs"`
	Failed int    `json:"failed_runs"` // runs that exited non-zero or were killed: not in the statistics
}

// Simulation says what a simulated command's counts were simulated on.
type Simulation struct {
	Simulator string     `json:"simulator"`        // "cachegrind"
	Caches    []SimCache `json:"caches,omitempty"` // the levels given; none when the simulator chose them
}

// SimCache is one simulated cache level.
type SimCache struct {
	Level     string `json:"level"` // "I1", "D1" or "LL" (cachegrind's last level)
	SizeBytes int    `json:"size_bytes"`
	Ways      int    `json:"ways"`
	LineBytes int    `json:"line_bytes"`
}

// String is "SIMULATED by cachegrind: D1 16384,4,32, LL 65536,8,32 (size,ways,line)".
func (s *Simulation) String() string {
	if s == nil {
		return ""
	}
	return "SIMULATED by " + s.Simulator + ": " + s.CachesText()
}

// CachesText is "D1 16384,4,32, LL 65536,8,32 (size,ways,line)", or what chose the caches.
func (s *Simulation) CachesText() string {
	if len(s.Caches) == 0 {
		return "the caches " + s.Simulator + " detected"
	}
	var parts []string
	for _, c := range s.Caches {
		parts = append(parts, fmt.Sprintf("%s %d,%d,%d", c.Level, c.SizeBytes, c.Ways, c.LineBytes))
	}
	return strings.Join(parts, ", ") + " (size,ways,line)"
}

// Simulated reports whether the command's counts come from a simulator.
func (c *Command) Simulated() bool { return strings.HasPrefix(c.Backend, result.SimulatedPrefix) }

// Run is one measured run with its raw counts.
type Run struct {
	Index int `json:"index"`
	// Region names the include/pmc.h region this "run" is, when regions are compared region
	// by region: each row then compares one region across the commands.
	Region     string          `json:"region,omitempty"`
	ExitStatus int             `json:"exit_status"`
	Signal     string          `json:"signal,omitempty"`
	ElapsedSec float64         `json:"elapsed_sec"`
	UserSec    float64         `json:"user_sec"`
	SysSec     float64         `json:"sys_sec"`
	MaxRSSKB   int64           `json:"max_rss_kb,omitempty"`
	Counts     []result.Count  `json:"counts"`
	Metrics    []result.Metric `json:"metrics,omitempty"`
	// TimedOut: the run was still going at --timeout and was ended (SIGTERM): a failure.
	TimedOut bool `json:"timed_out,omitempty"`
	// Interrupted: Ctrl-C cut this run short: not a failure of the command, but not a whole
	// run either; left out of the statistics.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Failed reports whether the run's command failed (its values are left out of the
// statistics): it exited non-zero, was killed or timed out. A run Ctrl-C cut short is not a
// failure.
func (r Run) Failed() bool {
	return !r.Interrupted && (r.ExitStatus != 0 || r.Signal != "" || r.TimedOut)
}

// Counted reports whether the run's values are in the statistics: it neither failed nor was
// cut short.
func (r Run) Counted() bool { return !r.Failed() && !r.Interrupted }

// Kind of a row.
const (
	KindTime   = "time"
	KindEvent  = "event"
	KindMetric = "metric"
)

// Row is one quantity across the commands.
type Row struct {
	Name string `json:"name"` // "wall time", "task-clock", "IPC"
	// Region is the include/pmc.h region the row compares, when the comparison is region by
	// region; "" otherwise.
	Region string `json:"region,omitempty"`
	Kind   string `json:"kind"` // "time", "event" or "metric"
	Unit   string `json:"unit,omitempty"`
	Cells  []Cell `json:"cells"` // one per command, in order
}

// NotRecorded is the status of a cell whose input does not record the quantity (include/pmc.h
// records no user or system time and no peak RSS): no value, never a 0.
const NotRecorded = "not-recorded"

// NotMeasured is the status of a cell pmc could not measure for this command: a peak RSS
// below what pmc's launcher used before the exec (the kernel keeps the larger across exec).
const NotMeasured = "not-measured"

// Cell is one quantity of one command.
type Cell struct {
	Status string `json:"status"` // result.Counted, or why there is no value
	// Runs are the indices of the runs with a value; Values their values in Unit.
	Runs   []int             `json:"runs"`
	Values []float64         `json:"values"`
	Stats  statistics.Sample `json:"stats"`
	// RunningPct is the share of the enabled time the counter ran (below 100: multiplexed
	// and scaled); 0 for times and metrics.
	RunningPct float64 `json:"running_pct,omitempty"`
	// Together (metrics): whether every operand was in one group in every run.
	Together *bool  `json:"measured_together,omitempty"`
	Warning  string `json:"warning,omitempty"`
	Error    string `json:"error,omitempty"`
	// Simulated: the values are a simulator's counts (events and metrics of a simulated
	// command), printed with SIMULATED beside them.
	Simulated bool   `json:"simulated,omitempty"`
	Delta     *Delta `json:"delta,omitempty"` // against the first command; nil for the first
}

// Delta is a command's change against the first command.
type Delta struct {
	Pct   float64 `json:"pct"`   // (mean - first mean) / first mean * 100
	Ratio float64 `json:"ratio"` // mean / first mean
	// CILowPct and CIHighPct bound Pct: Fieller's interval of the ratio of the means, as a
	// change in percent (never below -100% for a quantity that cannot be negative). Nil when
	// the runs are too few for their spread to bound it; CINote then says so.
	CILowPct  *float64 `json:"ci_low_pct,omitempty"`
	CIHighPct *float64 `json:"ci_high_pct,omitempty"`
	CINote    string   `json:"ci_note,omitempty"`
	P         float64  `json:"p"`  // Welch's t test of equal means, two-sided
	DF        float64  `json:"df"` // Welch–Satterthwaite degrees of freedom of the interval
	// Significant: the interval excludes no change. Without two values on each side there is
	// no interval and Tested is false.
	Significant bool `json:"significant"`
	Tested      bool `json:"tested"`
}

// Interval is the change's confidence interval in percent; ok is false when there is none.
func (d *Delta) Interval() (lo, hi float64, ok bool) {
	if d == nil || d.CILowPct == nil || d.CIHighPct == nil {
		return 0, 0, false
	}
	return *d.CILowPct, *d.CIHighPct, true
}

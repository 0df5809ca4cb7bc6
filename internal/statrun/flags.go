package statrun

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/stat"
)

// Flags are the raw flag values of `pmc stat`; request validates them into a stat.Request.
type Flags struct {
	Events             []string
	Repeat             int
	Warmup             int
	IntervalMS         int
	IntervalCount      int
	Sep                string
	CSV                bool
	JSON               bool
	Output             string
	Append             bool
	NoScale            bool
	NoBound            bool
	NoInherit          bool
	PIDs               string
	AllCPUs            bool
	CPUs               string
	NoAggr             bool
	Verbose            bool
	DryRun             bool
	Duration           time.Duration
	Fake               string
	Detailed           int                    // -d, -dd, -ddd: perf's detailed event sets
	TIDs               string                 // -t: attach to these threads only
	BigNum             bool                   // -B: group digits
	TimeoutMS          int                    // --timeout MS: perf's name for --duration, in milliseconds
	Null               bool                   // -n: no counters, the elapsed time only
	Pre, Post          string                 // shell commands run before and after each run
	Table              bool                   // --table: every run\'s time and the spread of every count
	DelayMS            int                    // -D: enable the counters this many ms after the exec
	Cgroup             string                 // -G: count only this cgroup (system-wide)
	PerSocket, PerCore bool                   // --per-socket, --per-core: per-CPU counts summed by socket or core
	PerThread          bool                   // --per-thread: one row per attached thread
	Sim                string                 // --sim: the simulator ("cachegrind")
	SimCache           string                 // --sim-cache: cache geometry overrides
	Metric             MetricFlags            // -M, --metric-group, --metrics-file, --metric-only, --report
	Perf               PerfFlags              // -j, --no-merge, --per-die, --per-node, --summary
	RecordTo           string                 // pmc stat record: the perf.data file ("-": stdout)
	Changed            func(name string) bool // whether a flag was given (even with an empty value)
}

// emptyValues rejects flags given with an empty value, which would otherwise mean "not
// given": `-e ”` counted perf's default set (perf: a syntax error), `-o ”` wrote to stderr.
func (f *Flags) emptyValues() error {
	if f.Changed == nil {
		return nil
	}
	for _, c := range []struct {
		flag, value, what string
	}{
		{"event", strings.Join(f.Events, ""), "-e: name at least one event"},
		{"field-separator", f.Sep, "-x: give the separator character, e.g. -x ,"},
		{"output", f.Output, "-o: name a file"},
		{"report", f.Metric.Report, "--report=FILE: name a file, or give --report alone for " + DefaultReportFile},
		{"metrics", strings.Join(f.Metric.Metrics, ""), "-M: name at least one metric or group (pmc stat --list-metrics)"},
		{"metric-group", strings.Join(f.Metric.Groups, ""), "--metric-group: name at least one group (pmc stat --list-metrics)"},
		{"metrics-file", f.Metric.File, "--metrics-file: name a file"},
		{"pid", f.PIDs, "-p: give the process ids, e.g. -p 1234,5678"},
		{"cpu", f.CPUs, "-C: give the CPUs, e.g. -C 0-3"},
		{"tid", f.TIDs, "-t: give the thread ids, e.g. -t 1234"},
		{"cgroup", f.Cgroup, "-G: name a cgroup, e.g. -G system.slice/ssh.service"},
		{"pre", f.Pre, "--pre: give a shell command"},
		{"post", f.Post, "--post: give a shell command"},
	} {
		v := c.value
		if c.flag != "field-separator" { // -x ' ' is a separator (perf's tests use it)
			v = strings.TrimSpace(v)
		}
		if f.Changed(c.flag) && v == "" {
			return errors.New(c.what)
		}
	}
	for _, ev := range f.Events {
		if strings.TrimSpace(ev) == "" {
			return errors.New("-e '': name at least one event (an empty -e is not perf's default set)")
		}
	}
	return nil
}

// request turns flags and arguments into a validated stat.Request (events not yet resolved).
func (f *Flags) request(e *Env, args []string) (*stat.Request, error) {
	req := &stat.Request{
		Command: args, Repeat: f.Repeat, Warmup: f.Warmup, NoScale: f.NoScale, NoBound: f.NoBound,
		PerCPU: f.NoAggr, Duration: f.Duration, IntervalCount: f.IntervalCount,
		Stdin: e.Workload[0], Stdout: e.Workload[1], Stderr: e.Workload[2],
	}
	if err := f.emptyValues(); err != nil {
		return nil, err
	}
	if err := f.checkPerf(); err != nil {
		return nil, err
	}
	if err := f.checkValues(); err != nil {
		return nil, err
	}
	req.Interval = time.Duration(f.IntervalMS) * time.Millisecond
	if f.TimeoutMS > 0 {
		req.Duration = time.Duration(f.TimeoutMS) * time.Millisecond
	}
	if err := f.target(req, args); err != nil {
		return nil, err
	}
	if f.DelayMS < 0 {
		return nil, fmt.Errorf("-D %d: give a delay of 0 or more milliseconds", f.DelayMS)
	}
	if f.DelayMS > 0 {
		if req.Mode != stat.Launch {
			return nil, errors.New("-D delays counting after a command starts: it needs a command (launch mode)")
		}
		req.Delay = time.Duration(f.DelayMS) * time.Millisecond
	}
	if f.Cgroup != "" {
		if req.Mode != stat.System {
			return nil, errors.New("-G counts a cgroup system-wide: add -a (or -C CPUS)")
		}
		req.Cgroup = f.Cgroup
	}
	if f.PerThread {
		if req.Mode != stat.Attach && !(req.Mode == stat.System && req.AllCPUs) {
			return nil, errors.New("--per-thread counts threads one by one: add -p PID (or -t TID), or -a for every thread")
		}
		req.PerThread = true
		names := map[int]string{} // read once per thread, not at every interval
		req.ThreadName = func(tid int) string {
			if name, ok := names[tid]; ok {
				return name
			}
			comm, _, _ := e.Machine().Comm(tid) // "" when the thread is gone
			names[tid] = comm
			return comm
		}
	}
	if by, err := f.aggregation(); err != nil {
		return nil, err
	} else if by != "" {
		switch {
		case f.NoAggr:
			return nil, fmt.Errorf("-A is one row per CPU; --per-%s sums them: choose one", by)
		case req.Mode != stat.System:
			return nil, fmt.Errorf("--per-%s needs system-wide mode: add -a or -C", by)
		case req.PerThread:
			return nil, fmt.Errorf("--per-thread and --per-%s: choose one", by)
		}
		req.PerCPU = true
	}
	if f.NoAggr && req.Mode != stat.System {
		return nil, errors.New("-A (per-CPU rows) needs system-wide mode: add -a or -C")
	}
	if req.Mode != stat.Launch && f.Repeat > 1 {
		return nil, errors.New("-r repeats a command: it needs launch mode")
	}
	return req, nil
}

// checkValues rejects values and combinations of the counting and output flags pmc cannot
// honour.
func (f *Flags) checkValues() error {
	switch {
	case f.Changed != nil && f.Changed("duration") && f.Duration <= 0:
		return fmt.Errorf("--duration %v: give a positive time, e.g. --duration 5s", f.Duration)
	case f.TimeoutMS < 0 || (f.Changed != nil && f.Changed("timeout") && f.TimeoutMS == 0):
		return fmt.Errorf("--timeout %d: give a positive time in milliseconds", f.TimeoutMS)
	case f.TimeoutMS > 0 && f.Duration > 0:
		return errors.New("--timeout and --duration both set the time: use one")
	case f.Null && (len(f.Events) > 0 || f.Detailed > 0 || f.Metric.requested()):
		return errors.New("-n counts nothing: drop it, or drop -e/-d/-M")
	case f.IntervalCount < 0:
		return fmt.Errorf("--interval-count %d: give a positive count", f.IntervalCount)
	case f.Repeat < 1:
		return fmt.Errorf("-r %d: the repeat count must be at least 1", f.Repeat)
	case f.Warmup < 0:
		return fmt.Errorf("--warmup %d: must be 0 or more", f.Warmup)
	case f.IntervalMS < 0 || (f.IntervalMS > 0 && f.IntervalMS < 1):
		return fmt.Errorf("-I %d: the interval must be at least 10 ms", f.IntervalMS)
	case f.IntervalMS > 0 && f.Repeat > 1:
		return errors.New("-I cannot be combined with -r: choose intervals or repeats")
	case f.IntervalCount > 0 && f.IntervalMS == 0:
		return errors.New("--interval-count needs -I MS")
	case f.CSV && f.Sep != "":
		return errors.New("--csv and -x both choose CSV output: use one")
	case f.JSON && (f.CSV || f.Sep != ""):
		return errors.New("--json cannot be combined with CSV output")
	case f.Append && f.Output == "":
		return errors.New("--append needs -o FILE")
	case len([]rune(f.Sep)) > 1:
		return fmt.Errorf("-x %q: the separator must be one character", f.Sep)
	case f.Sep == `"` || f.Sep == "\n" || f.Sep == "\r":
		return fmt.Errorf("-x %q: a quote or line break cannot separate CSV fields", f.Sep)
	}
	return nil
}

// target sets what the request counts: -p processes or -t threads, -a or -C CPUs, the
// whole system without a command, or the command launched.
func (f *Flags) target(req *stat.Request, args []string) error {
	switch {
	case f.PIDs != "" && f.TIDs != "":
		return errors.New("-p and -t both attach: give the processes with -p or the threads with -t")
	case f.PIDs != "" || f.TIDs != "":
		flag, list, what := "-p", f.PIDs, "process"
		if f.TIDs != "" {
			flag, list, what = "-t", f.TIDs, "thread"
			req.Threads = true
		}
		if f.AllCPUs || f.CPUs != "" {
			return fmt.Errorf("%s and -a/-C are different modes: choose one", flag)
		}
		if len(args) > 0 {
			return fmt.Errorf("%s counts existing %ses: drop the command %q", flag, what, args[0])
		}
		for _, p := range strings.Split(list, ",") {
			pid, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || pid <= 0 {
				return fmt.Errorf("%s %q: %q is not a %s id", flag, list, p, what)
			}
			req.PIDs = append(req.PIDs, pid)
		}
		req.Mode = stat.Attach
	case f.AllCPUs || f.CPUs != "":
		req.Mode = stat.System
		req.AllCPUs = f.CPUs == ""
		if f.CPUs != "" {
			cpus, err := pmu.ParseCPUFlag(f.CPUs)
			if err != nil {
				return err
			}
			req.CPUs = cpus
		}
	case len(args) == 0:
		// perf stat without a command or a target counts the whole system until Ctrl-C
		// (--duration, --interval-count)
		req.Mode, req.AllCPUs = stat.System, true
	default:
		req.Mode = stat.Launch
	}
	return nil
}

// MetricFlags are the metric and report flags of `pmc stat`.
type MetricFlags struct {
	Metrics     []string // -M: metric or group names
	Groups      []string // --metric-group
	File        string   // --metrics-file
	Only        bool     // --metric-only
	List        bool     // --list-metrics
	Report      string   // --report[=FILE]
	FakeMachine string   // hidden: --fake-machine FILE
}

// DefaultReportFile is where --report without a value writes.
const DefaultReportFile = "pmc-report.txt"

// requested says whether any metric or the report was asked for.
func (m *MetricFlags) requested() bool {
	return len(m.Metrics) > 0 || len(m.Groups) > 0 || m.Report != "" || m.File != ""
}

// check rejects metric flag combinations pmc cannot honour.
func (m *MetricFlags) check(f *Flags) error {
	switch {
	case m.Only && f.IntervalMS > 0:
		return errors.New("--metric-only cannot be combined with -I yet: drop one of them")
	case m.Only && f.DryRun:
		return errors.New("--metric-only prints results, --dry-run counts nothing: drop one of them")
	case m.Report != "" && f.DryRun:
		return errors.New("--report writes results, --dry-run counts nothing: drop one of them")
	case m.Report != "" && m.Report == f.Output:
		return fmt.Errorf("--report %s and -o %s name the same file: choose another report file", m.Report, f.Output)
	}
	return nil
}

// PerfFlags are perf stat's flags whose output is perf's own: -j (perf's JSON lines),
// --no-merge, --per-die, --per-node, --summary/--no-csv-summary with -I, --no-big-num.
type PerfFlags struct {
	JSON         bool // -j/--json-output: perf stat's JSON, one object per line
	NoMerge      bool // --no-merge: the text shows every counter, copies of an event apart
	PerDie       bool // --per-die: per-CPU counts summed by die (S0-D0)
	PerNode      bool // --per-node: per-CPU counts summed by NUMA node (N0)
	Summary      bool // --summary: with -I, the whole run's counts after the intervals
	NoCSVSummary bool // --no-csv-summary: those rows without perf's "summary" label (-x)
	NoBigNum     bool // --no-big-num: no digit grouping (overrides -B, as perf's negation)
}

// aggregation is the perf --per-X the flags ask for ("socket", "die", "core", "node"), ""
// for none; two of them are an error.
func (f *Flags) aggregation() (string, error) {
	var by []string
	for _, a := range []struct {
		on   bool
		name string
	}{{f.PerSocket, "socket"}, {f.Perf.PerDie, "die"}, {f.PerCore, "core"}, {f.Perf.PerNode, "node"}} {
		if a.on {
			by = append(by, a.name)
		}
	}
	switch len(by) {
	case 0:
		return "", nil
	case 1:
		return by[0], nil
	}
	return "", errors.New("--per-" + strings.Join(by, " and --per-") + ": choose one")
}

// checkPerf rejects perf-flag combinations pmc cannot honour. --summary without -I and
// --no-csv-summary without --summary change nothing, as in perf.
func (f *Flags) checkPerf() error {
	switch {
	case f.Perf.JSON && f.JSON:
		return errors.New("-j is perf's JSON, --json pmc's: choose one")
	case f.Perf.JSON && (f.CSV || f.Sep != ""):
		return errors.New("-j cannot be combined with CSV output")
	case f.Perf.JSON && f.Metric.Only:
		return errors.New("-j with --metric-only: use --json --metric-only")
	case f.Perf.JSON && f.Sim != "":
		return errors.New("-j has no place for the SIMULATED label: use --json with --sim")
	}
	return nil
}

// CheckRecord refuses what perf stat record's format does not hold.
func (f *Flags) CheckRecord() error {
	switch {
	case f.Repeat > 1:
		return errors.New("-r: pmc stat record records one run, as perf stat record does: drop -r")
	case f.IntervalMS > 0:
		return errors.New("-I: interval recordings are not written yet: record the totals without -I")
	case f.PerSocket || f.PerCore || f.Perf.PerDie || f.Perf.PerNode:
		return errors.New("--per-socket/--per-core/--per-die/--per-node sums are not recorded: record without them")
	case f.Sim != "":
		return errors.New("--sim: simulated counts are not recorded as counters: drop --sim")
	case f.Metric.Report != "" || f.Append:
		return errors.New("--report and --append write pmc stat's own outputs: drop them with stat record")
	}
	return nil
}

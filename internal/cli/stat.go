package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/launch"
	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

// statFlags are the raw flag values of `pmc stat`; statOptions validates them into a Request.
type statFlags struct {
	events             []string
	repeat             int
	warmup             int
	intervalMS         int
	intervalCount      int
	sep                string
	csv                bool
	json               bool
	output             string
	appendOut          bool
	noScale            bool
	noBound            bool
	noInherit          bool
	pids               string
	allCPUs            bool
	cpus               string
	noAggr             bool
	verbose            bool
	dryRun             bool
	duration           time.Duration
	fake               string
	detailed           int                    // -d, -dd, -ddd: perf's detailed event sets
	tids               string                 // -t: attach to these threads only
	bigNum             bool                   // -B: group digits
	timeoutMS          int                    // --timeout MS: perf's name for --duration, in milliseconds
	null               bool                   // -n: no counters, the elapsed time only
	pre, post          string                 // shell commands run before and after each run
	table              bool                   // --table: every run\'s time and the spread of every count
	delayMS            int                    // -D: enable the counters this many ms after the exec
	cgroup             string                 // -G: count only this cgroup (system-wide)
	perSocket, perCore bool                   // --per-socket, --per-core: per-CPU counts summed by socket or core
	perThread          bool                   // --per-thread: one row per attached thread
	sim                string                 // --sim: the simulator ("cachegrind")
	simCache           string                 // --sim-cache: cache geometry overrides
	metric             metricFlags            // -M, --metric-group, --metrics-file, --metric-only, --report
	perf               perfFlags              // -j, --no-merge, --per-die, --per-node, --summary
	recordTo           string                 // pmc stat record: the perf.data file ("-": stdout)
	changed            func(name string) bool // whether a flag was given (even with an empty value)
}

// emptyValues rejects flags given with an empty value, which would otherwise mean "not
// given": `-e ”` counted perf's default set (perf: a syntax error), `-o ”` wrote to stderr.
func (f *statFlags) emptyValues() error {
	if f.changed == nil {
		return nil
	}
	for _, c := range []struct {
		flag, value, what string
	}{
		{"event", strings.Join(f.events, ""), "-e: name at least one event"},
		{"field-separator", f.sep, "-x: give the separator character, e.g. -x ,"},
		{"output", f.output, "-o: name a file"},
		{"report", f.metric.report, "--report=FILE: name a file, or give --report alone for " + defaultReportFile},
		{"metrics", strings.Join(f.metric.metrics, ""), "-M: name at least one metric or group (pmc stat --list-metrics)"},
		{"metric-group", strings.Join(f.metric.groups, ""), "--metric-group: name at least one group (pmc stat --list-metrics)"},
		{"metrics-file", f.metric.file, "--metrics-file: name a file"},
		{"pid", f.pids, "-p: give the process ids, e.g. -p 1234,5678"},
		{"cpu", f.cpus, "-C: give the CPUs, e.g. -C 0-3"},
		{"tid", f.tids, "-t: give the thread ids, e.g. -t 1234"},
		{"cgroup", f.cgroup, "-G: name a cgroup, e.g. -G system.slice/ssh.service"},
		{"pre", f.pre, "--pre: give a shell command"},
		{"post", f.post, "--post: give a shell command"},
	} {
		v := c.value
		if c.flag != "field-separator" { // -x ' ' is a separator (perf's tests use it)
			v = strings.TrimSpace(v)
		}
		if f.changed(c.flag) && v == "" {
			return errors.New(c.what)
		}
	}
	for _, ev := range f.events {
		if strings.TrimSpace(ev) == "" {
			return errors.New("-e '': name at least one event (an empty -e is not perf's default set)")
		}
	}
	return nil
}

func newStatCmd(e *env) *cobra.Command {
	f := &statFlags{}
	cmd := &cobra.Command{
		Use:   "stat [options] [--] COMMAND [ARGS...]",
		Short: "count events while a command runs (or for -p PIDs, or system-wide with -a)",
		Long: `Count events while COMMAND runs, like perf stat. Counters start exactly at the
command's exec and follow its threads and children (--no-inherit to stop that).
Multiplexed counts are scaled by time_enabled/time_running and the running share is shown;
an event that never ran is <not counted>, never 0. pmc exits with the command's status.
Without a command, -p or -t, the whole system is counted until Ctrl-C, as perf stat does.
pmc stat record [options] [-o FILE|-] COMMAND also writes the counts as perf stat record
does, and pmc stat report [-i FILE|-] prints such a file (pmc stat record --help).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "record" || args[0] == "report") && cmd.Flags().ArgsLenAtDash() != 0 {
				return runStatSub(cmd, e, args)
			}
			f.changed = cmd.Flags().Changed
			args, err := f.metric.reportArg(cmd.Flags(), args)
			if err != nil {
				return usageErr(err)
			}
			return runStat(cmd.Context(), e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // the workload's flags stay the workload's
	f.register(fl)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if strings.Contains(err.Error(), "'c' in -c") {
			return usageErr(errors.New("-c: pmc stat has no -c (perf stat's -c only asks for the default scaling); --no-scale prints raw counts, and -c N is pmc record's sample period"))
		}
		return usageErr(err)
	})
	return cmd
}

// register defines pmc stat's flags on fl (pmc stat record's too).
func (f *statFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVarP(&f.events, "event", "e", nil, "events to count: comma-separated, repeatable; {a,b} groups; :u :k modifiers")
	fl.IntVarP(&f.repeat, "repeat", "r", 1, "run the command N times and print mean and variation")
	fl.IntVar(&f.warmup, "warmup", 0, "run the command K times first without counting")
	fl.IntVarP(&f.intervalMS, "interval-print", "I", 0, "print count deltas every MS milliseconds")
	fl.IntVar(&f.intervalCount, "interval-count", 0, "stop after this many intervals (with -I)")
	fl.StringVarP(&f.sep, "field-separator", "x", "", "CSV-like output with this separator (RFC 4180 quoting)")
	fl.BoolVar(&f.csv, "csv", false, "RFC 4180 CSV with a header row")
	fl.BoolVar(&f.json, "json", false, "pmc's JSON output (schema pmc.stat/v1, docs/json-schema.md); perf's is -j")
	fl.StringVarP(&f.output, "output", "o", "", "write the results to FILE (atomically) instead of stderr")
	fl.BoolVar(&f.appendOut, "append", false, "append to the -o file instead of replacing it")
	fl.BoolVar(&f.noScale, "no-scale", false, "print raw counts, not scaled for multiplexing")
	fl.BoolVar(&f.noBound, "no-bound", false, "do not read multiplexed counters every 10 ms for the error bound of their scaled counts")
	fl.BoolVarP(&f.noInherit, "no-inherit", "i", false, "do not count the command's threads and children")
	fl.StringVarP(&f.pids, "pid", "p", "", "attach to these processes (comma-separated) until Ctrl-C or --duration")
	fl.BoolVarP(&f.allCPUs, "all-cpus", "a", false, "count system-wide on all CPUs")
	fl.StringVarP(&f.tids, "tid", "t", "", "attach to these threads only (comma-separated thread ids)")
	fl.StringVarP(&f.cpus, "cpu", "C", "", "count system-wide on these CPUs only (e.g. 0-3,6); not list/explain's --cpu, which names a CPU model")
	fl.BoolVarP(&f.noAggr, "no-aggr", "A", false, "one row per CPU instead of the sum (with -a/-C)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print each event's perf_event_attr before counting")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print each event's perf_event_attr and exit without counting")
	fl.DurationVar(&f.duration, "duration", 0, "stop counting after this long (a command gets SIGTERM; pmc exits 0)")
	fl.IntVar(&f.timeoutMS, "timeout", 0, "perf's form of --duration, in milliseconds")
	fl.CountVarP(&f.detailed, "detailed", "d", "add perf's detailed events: -d L1 and LLC, -dd also L1-icache and TLBs, -ddd also prefetches")
	fl.BoolVarP(&f.bigNum, "big-num", "B", false, "group the digits of counts (1,234,567; the locale's separator where pmc knows it)")
	fl.BoolVarP(&f.null, "null", "n", false, "count nothing: the elapsed time only")
	fl.IntVarP(&f.delayMS, "delay", "D", 0, "start counting MS milliseconds after the command's exec (perf's -D)")
	fl.StringVarP(&f.cgroup, "cgroup", "G", "", "with -a/-C: count only the tasks of this cgroup v2 (relative to its mount, or an absolute path)")
	fl.BoolVar(&f.perSocket, "per-socket", false, "with -a/-C: one row per socket (its CPUs' counts summed), as perf")
	fl.BoolVar(&f.perThread, "per-thread", false, "with -p/-t: one row per thread (perf's comm-tid), no metrics; with -a every thread of the system that counted something")
	fl.BoolVar(&f.perCore, "per-core", false, "with -a/-C: one row per physical core (its hardware threads summed), as perf")
	fl.BoolVar(&f.table, "table", false, "with -r: print every run's elapsed time (as perf) and each count's and metric's standard deviation, min and max")
	fl.StringVar(&f.pre, "pre", "", "shell command run before each run (a failure stops pmc)")
	fl.StringVar(&f.post, "post", "", "shell command run after each run (a failure stops pmc)")
	fl.StringVar(&f.fake, "fake", "", "use the deterministic fake backend scripted by FILE (tests)")
	fl.MarkHidden("fake")
	fl.StringVar(&f.sim, "sim", "", "SIMULATE instead of counting: run the command under valgrind's cachegrind (--sim or --sim=cachegrind); every output is labelled SIMULATED")
	fl.Lookup("sim").NoOptDefVal = "cachegrind"
	fl.StringVar(&f.simCache, "sim-cache", "", "with --sim: cache geometry instead of sysfs's, e.g. 'D1=8192,4,64;LL=1048576,16,64' (size,ways,line)")
	f.metric.register(fl)
	f.perf.register(fl)
}

// request turns flags and arguments into a validated stat.Request (events not yet resolved).
func (f *statFlags) request(e *env, args []string) (*stat.Request, error) {
	req := &stat.Request{
		Command: args, Repeat: f.repeat, Warmup: f.warmup, NoScale: f.noScale, NoBound: f.noBound,
		PerCPU: f.noAggr, Duration: f.duration, IntervalCount: f.intervalCount,
		Stdin: e.workload[0], Stdout: e.workload[1], Stderr: e.workload[2],
	}
	if err := f.emptyValues(); err != nil {
		return nil, err
	}
	if err := f.checkPerf(); err != nil {
		return nil, err
	}
	switch {
	case f.changed != nil && f.changed("duration") && f.duration <= 0:
		return nil, fmt.Errorf("--duration %v: give a positive time, e.g. --duration 5s", f.duration)
	case f.timeoutMS < 0 || (f.changed != nil && f.changed("timeout") && f.timeoutMS == 0):
		return nil, fmt.Errorf("--timeout %d: give a positive time in milliseconds", f.timeoutMS)
	case f.timeoutMS > 0 && f.duration > 0:
		return nil, errors.New("--timeout and --duration both set the time: use one")
	case f.null && (len(f.events) > 0 || f.detailed > 0 || f.metric.requested()):
		return nil, errors.New("-n counts nothing: drop it, or drop -e/-d/-M")
	case f.intervalCount < 0:
		return nil, fmt.Errorf("--interval-count %d: give a positive count", f.intervalCount)
	case f.repeat < 1:
		return nil, fmt.Errorf("-r %d: the repeat count must be at least 1", f.repeat)
	case f.warmup < 0:
		return nil, fmt.Errorf("--warmup %d: must be 0 or more", f.warmup)
	case f.intervalMS < 0 || (f.intervalMS > 0 && f.intervalMS < 1):
		return nil, fmt.Errorf("-I %d: the interval must be at least 10 ms", f.intervalMS)
	case f.intervalMS > 0 && f.repeat > 1:
		return nil, errors.New("-I cannot be combined with -r: choose intervals or repeats")
	case f.intervalCount > 0 && f.intervalMS == 0:
		return nil, errors.New("--interval-count needs -I MS")
	case f.csv && f.sep != "":
		return nil, errors.New("--csv and -x both choose CSV output: use one")
	case f.json && (f.csv || f.sep != ""):
		return nil, errors.New("--json cannot be combined with CSV output")
	case f.appendOut && f.output == "":
		return nil, errors.New("--append needs -o FILE")
	case len([]rune(f.sep)) > 1:
		return nil, fmt.Errorf("-x %q: the separator must be one character", f.sep)
	case f.sep == `"` || f.sep == "\n" || f.sep == "\r":
		return nil, fmt.Errorf("-x %q: a quote or line break cannot separate CSV fields", f.sep)
	}
	req.Interval = time.Duration(f.intervalMS) * time.Millisecond
	if f.timeoutMS > 0 {
		req.Duration = time.Duration(f.timeoutMS) * time.Millisecond
	}
	switch {
	case f.pids != "" && f.tids != "":
		return nil, errors.New("-p and -t both attach: give the processes with -p or the threads with -t")
	case f.pids != "" || f.tids != "":
		flag, list, what := "-p", f.pids, "process"
		if f.tids != "" {
			flag, list, what = "-t", f.tids, "thread"
			req.Threads = true
		}
		if f.allCPUs || f.cpus != "" {
			return nil, fmt.Errorf("%s and -a/-C are different modes: choose one", flag)
		}
		if len(args) > 0 {
			return nil, fmt.Errorf("%s counts existing %ses: drop the command %q", flag, what, args[0])
		}
		for _, p := range strings.Split(list, ",") {
			pid, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || pid <= 0 {
				return nil, fmt.Errorf("%s %q: %q is not a %s id", flag, list, p, what)
			}
			req.PIDs = append(req.PIDs, pid)
		}
		req.Mode = stat.Attach
	case f.allCPUs || f.cpus != "":
		req.Mode = stat.System
		req.AllCPUs = f.cpus == ""
		if f.cpus != "" {
			cpus, err := pmu.ParseCPUList(f.cpus)
			if err != nil {
				return nil, fmt.Errorf("-C: %w", err)
			}
			if len(cpus) == 0 {
				return nil, fmt.Errorf("-C %q: name at least one CPU, e.g. -C 0 or -C 0-3", f.cpus)
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
	if f.delayMS < 0 {
		return nil, fmt.Errorf("-D %d: give a delay of 0 or more milliseconds", f.delayMS)
	}
	if f.delayMS > 0 {
		if req.Mode != stat.Launch {
			return nil, errors.New("-D delays counting after a command starts: it needs a command (launch mode)")
		}
		req.Delay = time.Duration(f.delayMS) * time.Millisecond
	}
	if f.cgroup != "" {
		if req.Mode != stat.System {
			return nil, errors.New("-G counts a cgroup system-wide: add -a (or -C CPUS)")
		}
		req.Cgroup = f.cgroup
	}
	if f.perThread {
		if req.Mode != stat.Attach && !(req.Mode == stat.System && req.AllCPUs) {
			return nil, errors.New("--per-thread counts threads one by one: add -p PID (or -t TID), or -a for every thread")
		}
		req.PerThread = true
		names := map[int]string{} // read once per thread, not at every interval
		req.ThreadName = func(tid int) string {
			if name, ok := names[tid]; ok {
				return name
			}
			comm, _, _ := e.machine().Comm(tid) // "" when the thread is gone
			names[tid] = comm
			return comm
		}
	}
	if by, err := f.aggregation(); err != nil {
		return nil, err
	} else if by != "" {
		switch {
		case f.noAggr:
			return nil, fmt.Errorf("-A is one row per CPU; --per-%s sums them: choose one", by)
		case req.Mode != stat.System:
			return nil, fmt.Errorf("--per-%s needs system-wide mode: add -a or -C", by)
		case req.PerThread:
			return nil, fmt.Errorf("--per-thread and --per-%s: choose one", by)
		}
		req.PerCPU = true
	}
	if f.noAggr && req.Mode != stat.System {
		return nil, errors.New("-A (per-CPU rows) needs system-wide mode: add -a or -C")
	}
	if req.Mode != stat.Launch && f.repeat > 1 {
		return nil, errors.New("-r repeats a command: it needs launch mode")
	}
	return req, nil
}

// statMachines picks the machines of a pmc stat run: the one its events resolve on, and the
// one whose facts (CPU, counters, built-in metrics, the report's header) apply. Normally both
// are this machine. The fake backend and --fake-machine resolve on an empty machine, with the
// facts of --fake-machine FILE or none, so that their output is the same on every host.
func statMachines(e *env, f *statFlags) (facts, on *host.Machine, err error) {
	if f.fake != "" || f.metric.fakeMachine != "" || f.sim != "" {
		on = host.Empty() // not this machine's sysfs: the recorded or scripted one has none
	} else {
		on = e.machine()
	}
	facts = on
	if f.sim != "" && f.fake == "" {
		facts = e.machine() // the simulated CPU is this one (its caches, its metrics)
	}
	if f.metric.fakeMachine != "" {
		data, err := readInput(f.metric.fakeMachine, nil, limitFacts, "--fake-machine")
		if err != nil {
			return nil, nil, err
		}
		if facts, err = host.Load(data); err != nil {
			return nil, nil, fmt.Errorf("--fake-machine %s: %w", filepath.Base(f.metric.fakeMachine), err)
		}
	}
	return facts, on, nil
}

func runStat(ctx context.Context, e *env, f *statFlags, args []string) error {
	facts, on, err := statMachines(e, f)
	if err != nil {
		return usageErr(err)
	}
	if f.metric.list && f.cpus != "" {
		// --list-metrics --cpu NAME: the metrics of that CPU model (-C's long name is --cpu)
		if facts, err = facts.Browse(f.cpus); err != nil {
			return usageErr(err)
		}
		on = facts
	}
	plan, err := newMetricPlan(&f.metric, facts, on)
	if err != nil {
		return usageErr(err)
	}
	if f.metric.list {
		return listMetrics(e.stdout, plan)
	}
	req, err := f.request(e, args)
	if err != nil {
		return usageErr(err)
	}
	if err := f.metric.check(f); err != nil {
		return usageErr(err)
	}
	if req.Cgroup != "" && !filepath.IsAbs(req.Cgroup) {
		mount, err := on.Cgroup2Mount()
		if err != nil {
			return usageErr(fmt.Errorf("-G %s: %w", req.Cgroup, err))
		}
		req.Cgroup = filepath.Join(mount, req.Cgroup)
	}
	if req.Mode == stat.System && len(req.CPUs) == 0 {
		req.CPUs = on.PMUs.Online // -a: every online CPU, named in the result
	}
	if err := onlineOnly(req, on); err != nil {
		return usageErr(err)
	}
	if f.perThread && f.metric.requested() {
		return usageErr(errors.New("--per-thread prints counts only: drop -M/--report"))
	}
	if by, _ := f.aggregation(); by != "" {
		topo, err := facts.Topology(req.CPUs)
		if err == nil {
			req.Aggregation, err = host.Aggregate(by, topo, req.CPUs)
		}
		if err != nil {
			return usageErr(fmt.Errorf("--per-%s: %w", by, err))
		}
	}
	if f.sim != "" && len(f.events) == 0 && len(plan.names) == 0 {
		f.events = []string{simDefaultEvents}
	}
	if f.simCache != "" && f.sim == "" {
		return usageErr(fmt.Errorf("--sim-cache needs --sim"))
	}
	spec, err := chooseEvents(f, req.Mode, plan)
	if err != nil {
		return usageErr(err)
	}
	machineStderr := f.output == "" && (f.json || f.perf.json || f.csv || f.sep != "")
	for _, w := range plan.warnings {
		if !machineStderr {
			fmt.Fprintf(e.stderr, "pmc: %s\n", w)
		}
	}
	if !f.null {
		evs, err := resolveDelayed(on, spec, req.Mode, !f.noInherit, req.Delay > 0)
		if err != nil {
			return usageErr(err)
		}
		if err := plan.checkPinned(evs); err != nil {
			return usageErr(err)
		}
		req.Events = evs
		plan.notes = plan.mark(req.Events)
	}
	if f.verbose || f.dryRun {
		printPlan(e.stderr, plan)
		printAttrs(e.stderr, req.Events)
		if f.dryRun {
			return nil
		}
	}
	var backend stat.Backend = stat.Kernel{Machine: e.machine()} // counting happens here, whatever the events resolved on
	if f.fake != "" {
		data, err := readInput(f.fake, nil, limitFake, "--fake")
		if err != nil {
			return usageErr(err)
		}
		spec, err := stat.ParseFakeSpec(data)
		if err != nil {
			return usageErr(err)
		}
		backend = stat.Fake{Spec: spec}
	}
	if f.sim != "" {
		if f.fake != "" {
			return usageErr(errors.New("--sim and --fake are different backends: choose one"))
		}
		b, err := simBackend(e.machine(), f)
		if err != nil {
			return usageErr(err)
		}
		backend = b
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if req.Mode != stat.Launch {
		// Attach and system-wide counting stop at Ctrl-C; in launch mode the workload gets the
		// signal (forwarded by the launcher) and its end stops the count.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
		defer stop()
	}
	out, err := newStatOutput(e, f, req, plan)
	if err != nil {
		return usageErr(err)
	}
	reportFile, err := openReport(f.metric.report)
	if err != nil {
		out.abort()
		return usageErr(err)
	}
	rec, err := openStatRecording(e, f, req)
	if err != nil {
		out.abort()
		return err
	}
	started := time.Now()
	res, runErr := stat.Measure(ctx, backend, req, stat.Options{OnInterval: out.interval, KeepRuns: out.keepRuns(),
		Pre: shellHook(e, "--pre", f.pre), Post: shellHook(e, "--post", f.post)})
	if res == nil || len(res.Runs) == 0 {
		out.abort()
		rec.abort()
		if reportFile != nil {
			reportFile.Abort()
		}
	} else {
		res.Notes = append(append(append([]string(nil), plan.warnings...), plan.notes...), res.Notes...)
		if last := res.Runs[len(res.Runs)-1]; last.Abandoned {
			res.Notes = append(res.Notes, fmt.Sprintf("the workload did not end on %s: pmc stopped waiting after %v and it still runs; the counts are those up to then",
				last.Signal, launch.Grace))
		}
		if hint := noPMUHint(e, res); hint != "" {
			res.Notes = append(res.Notes, hint)
		}
		if !req.PerThread { // the metrics know rows by event and CPU, not by thread
			res.Metrics = plan.result(res)
			plan.spread(res)
		}
		if f.fake != "" {
			started = time.Time{} // scripted counts: no date, the same output on every run
			if f.metric.fakeMachine != "" {
				started = facts.Date
			}
		}
		stamp(res, facts, started, e.args)
		writeErr := errors.Join(out.final(res), rec.finish(res, req.Events))
		if writeErr != nil {
			out.rescue(res)
			if reportFile != nil {
				reportFile.Abort()
			}
		} else {
			writeErr = writeReport(reportFile, f.metric.file, res, plan)
			if writeErr == nil && reportFile != nil {
				res.Notes = append(res.Notes, "report written to "+f.metric.report)
			}
		}
		if !out.machineStderr() {
			for _, n := range res.Notes[len(plan.warnings):] { // the plan's were printed before counting
				fmt.Fprintf(e.stderr, "pmc: %s\n", n)
			}
		}
		if writeErr != nil && runErr == nil {
			// The workload's status is kept; a run that succeeded still reports the failure.
			code := res.ExitStatus
			if code == 0 {
				code = 1
			}
			return &exitError{code: code, err: writeErr}
		}
	}
	if runErr != nil {
		return &exitError{code: exitStatusFor(runErr), err: runErr}
	}
	if len(res.Runs) > 0 && res.Runs[len(res.Runs)-1].Stopped {
		return nil // pmc ended the workload itself (--duration, --interval-count): perf exits 0
	}
	if res.ExitStatus != 0 {
		return &exitError{code: res.ExitStatus}
	}
	return nil
}

// onlineOnly refuses -C CPUs that are not online: perf prints <not supported> for them, pmc
// counted the others and labelled the result with all (-C 0-99 on a 2-CPU machine).
func onlineOnly(req *stat.Request, m *host.Machine) error {
	if req.Mode != stat.System || len(m.PMUs.Online) == 0 {
		return nil
	}
	online := map[int]bool{}
	for _, c := range m.PMUs.Online {
		online[c] = true
	}
	var missing []int
	for _, c := range req.CPUs {
		if !online[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("-C: CPU %s not online here (online: %s)", pmu.FormatCPUList(missing), pmu.FormatCPUList(m.PMUs.Online))
	}
	return nil
}

// usageErr marks an error in what the user asked for.
func usageErr(err error) error { return &exitError{code: 1, err: err} }

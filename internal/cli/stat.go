package cli

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statrun"
)

func newStatCmd(e *env) *cobra.Command {
	f := &statrun.Flags{}
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
			f.Changed = cmd.Flags().Changed
			args, err := reportArg(cmd.Flags(), &f.Metric, args)
			if err != nil {
				return usageErr(err)
			}
			return runStat(cmd.Context(), e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // the workload's flags stay the workload's
	registerStat(fl, f)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if strings.Contains(err.Error(), "'c' in -c") {
			return usageErr(errors.New("-c: pmc stat has no -c (perf stat's -c only asks for the default scaling); --no-scale prints raw counts, and -c N is pmc record's sample period"))
		}
		return usageErr(err)
	})
	return cmd
}

// register defines pmc stat's flags on fl (pmc stat record's too).
func registerStat(fl *pflag.FlagSet, f *statrun.Flags) {
	fl.StringArrayVarP(&f.Events, "event", "e", nil, "events to count: comma-separated, repeatable; {a,b} groups; :u :k modifiers")
	fl.IntVarP(&f.Repeat, "repeat", "r", 1, "run the command N times and print mean and variation")
	fl.IntVar(&f.Warmup, "warmup", 0, "run the command K times first without counting")
	fl.IntVarP(&f.IntervalMS, "interval-print", "I", 0, "print count deltas every MS milliseconds")
	fl.IntVar(&f.IntervalCount, "interval-count", 0, "stop after this many intervals (with -I)")
	fl.StringVarP(&f.Sep, "field-separator", "x", "", "CSV-like output with this separator (RFC 4180 quoting)")
	fl.BoolVar(&f.CSV, "csv", false, "RFC 4180 CSV with a header row")
	fl.BoolVar(&f.JSON, "json", false, "pmc's JSON output (schema pmc.stat/v1, docs/json-schema.md); perf's is -j")
	fl.StringVarP(&f.Output, "output", "o", "", "write the results to FILE (atomically) instead of stderr")
	fl.BoolVar(&f.Append, "append", false, "append to the -o file instead of replacing it")
	fl.BoolVar(&f.NoScale, "no-scale", false, "print raw counts, not scaled for multiplexing")
	fl.BoolVar(&f.NoBound, "no-bound", false, "do not read multiplexed counters every 10 ms for the error bound of their scaled counts")
	fl.BoolVarP(&f.NoInherit, "no-inherit", "i", false, "do not count the command's threads and children")
	fl.StringVarP(&f.PIDs, "pid", "p", "", "attach to these processes (comma-separated) until Ctrl-C or --duration")
	fl.BoolVarP(&f.AllCPUs, "all-cpus", "a", false, "count system-wide on all CPUs")
	fl.StringVarP(&f.TIDs, "tid", "t", "", "attach to these threads only (comma-separated thread ids)")
	fl.StringVarP(&f.CPUs, "cpu", "C", "", "count system-wide on these CPUs only (e.g. 0-3,6); not list/explain's --cpu, which names a CPU model")
	fl.BoolVarP(&f.NoAggr, "no-aggr", "A", false, "one row per CPU instead of the sum (with -a/-C)")
	fl.BoolVarP(&f.Verbose, "verbose", "v", false, "print each event's perf_event_attr before counting")
	fl.BoolVar(&f.DryRun, "dry-run", false, "print each event's perf_event_attr and exit without counting")
	fl.DurationVar(&f.Duration, "duration", 0, "stop counting after this long (a command gets SIGTERM; pmc exits 0)")
	fl.IntVar(&f.TimeoutMS, "timeout", 0, "perf's form of --duration, in milliseconds")
	fl.CountVarP(&f.Detailed, "detailed", "d", "add perf's detailed events: -d L1 and LLC, -dd also L1-icache and TLBs, -ddd also prefetches")
	fl.BoolVarP(&f.BigNum, "big-num", "B", false, "group the digits of counts (1,234,567; the locale's separator where pmc knows it)")
	fl.BoolVarP(&f.Null, "null", "n", false, "count nothing: the elapsed time only")
	fl.IntVarP(&f.DelayMS, "delay", "D", 0, "start counting MS milliseconds after the command's exec (perf's -D)")
	fl.StringVarP(&f.Cgroup, "cgroup", "G", "", "with -a/-C: count only the tasks of this cgroup v2 (relative to its mount, or an absolute path)")
	fl.BoolVar(&f.PerSocket, "per-socket", false, "with -a/-C: one row per socket (its CPUs' counts summed), as perf")
	fl.BoolVar(&f.PerThread, "per-thread", false, "with -p/-t: one row per thread (perf's comm-tid), no metrics; with -a every thread of the system that counted something")
	fl.BoolVar(&f.PerCore, "per-core", false, "with -a/-C: one row per physical core (its hardware threads summed), as perf")
	fl.BoolVar(&f.Table, "table", false, "with -r: print every run's elapsed time (as perf) and each count's and metric's standard deviation, min and max")
	fl.StringVar(&f.Pre, "pre", "", "shell command run before each run (a failure stops pmc)")
	fl.StringVar(&f.Post, "post", "", "shell command run after each run (a failure stops pmc)")
	fl.StringVar(&f.Fake, "fake", "", "use the deterministic fake backend scripted by FILE (tests)")
	fl.MarkHidden("fake")
	fl.StringVar(&f.Sim, "sim", "", "SIMULATE instead of counting: run the command under valgrind's cachegrind (--sim or --sim=cachegrind); every output is labelled SIMULATED")
	fl.Lookup("sim").NoOptDefVal = "cachegrind"
	fl.StringVar(&f.SimCache, "sim-cache", "", "with --sim: cache geometry instead of sysfs's, e.g. 'D1=8192,4,64;LL=1048576,16,64' (size,ways,line)")
	registerMetric(fl, &f.Metric)
	registerPerf(fl, &f.Perf)
}

// statEnv is what pmc stat's run needs of e.
func (e *env) statEnv() *statrun.Env {
	return &statrun.Env{Stdout: e.stdout, Stderr: e.stderr, Workload: e.workload, Args: e.args,
		Machine: e.machine, Platform: e.platform,
		Read:          func(path string, limit int64, what string) ([]byte, error) { return readInput(path, nil, limit, what) },
		OpenRecording: func(path string) (statrun.Recording, error) { return openRecording(e, path) },
		Stamp:         func(res *result.Stat, facts *host.Machine, started time.Time) { stamp(res, facts, started, e.args) }}
}

// runStat runs pmc stat (statrun.Run) with e's streams and machine.
func runStat(ctx context.Context, e *env, f *statrun.Flags, args []string) error {
	return statErr(statrun.Run(ctx, e.statEnv(), f, args))
}

// statErr carries statrun's exit status to cobra's.
func statErr(err error) error {
	var x *statrun.ExitError
	if errors.As(err, &x) {
		return &exitError{code: x.Code, err: x.Err}
	}
	return err
}

// usageErr marks an error in what the user asked for.
func usageErr(err error) error { return &exitError{code: 1, err: err} }

// resolveOn is statrun.ResolveOn, for pmc record and pmc mem.
func resolveOn(m *host.Machine, spec string, mode stat.Mode, inherit bool) ([]stat.Event, error) {
	return statrun.ResolveOn(m, spec, mode, inherit)
}

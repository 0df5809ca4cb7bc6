package cli

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/record"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statrecord"
)

// runStatSub runs pmc stat record or pmc stat report (args[0]). They are built only when
// asked for: every other pmc launch, pmc stat's included, would pay for a second copy of
// stat's flags.
func runStatSub(stat *cobra.Command, e *env, args []string) error {
	if stat.Flags().NFlag() > 0 {
		return usageErr(fmt.Errorf("pmc stat %s: give the options after %[1]s (pmc stat %[1]s -e EVENTS ...)", args[0]))
	}
	sub := newStatReportCmd(e)
	if args[0] == "record" {
		sub = newStatRecordCmd(e)
	}
	root, parent := &cobra.Command{Use: "pmc", SilenceUsage: true, SilenceErrors: true}, &cobra.Command{Use: "stat"}
	root.AddCommand(parent)
	parent.AddCommand(sub)
	root.SetArgs(append([]string{"stat"}, args...))
	root.SetOut(stat.OutOrStdout())
	root.SetErr(stat.ErrOrStderr())
	sub.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	return root.ExecuteContext(stat.Context())
}

func newStatRecordCmd(e *env) *cobra.Command {
	f := &statFlags{}
	cmd := &cobra.Command{
		Use:   "record [options] [-o FILE|-] [--] COMMAND [ARGS...]",
		Short: "count as pmc stat does and also write the counts to perf.data (perf stat report reads it)",
		Long: `Count as pmc stat does (the counts are printed too) and write them as perf stat
record does: a perf.data file (default perf.data, an older one kept as perf.data.old), or
with -o - perf's pipe format on standard output (the workload's own standard output then
goes to its standard error). pmc stat report and perf stat report read it back. One run's
totals are recorded: not -r N, -I or the per-socket and per-core sums.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("output") && f.output == "" {
				return usageErr(errors.New("-o: name a file (or - for standard output)"))
			}
			// -o is the recording's; the counts are printed on stderr.
			f.changed = func(name string) bool { return name != "output" && cmd.Flags().Changed(name) }
			f.recordTo, f.output = cmp.Or(f.output, "perf.data"), ""
			if err := f.checkRecord(); err != nil {
				return usageErr(err)
			}
			return runStat(cmd.Context(), e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false)
	f.register(fl)
	fl.Lookup("output").Usage = "the perf.data file to write (default perf.data; -: standard output, perf's pipe format)"
	return cmd
}

// checkRecord refuses what perf stat record's format does not hold.
func (f *statFlags) checkRecord() error {
	switch {
	case f.repeat > 1:
		return errors.New("-r: pmc stat record records one run, as perf stat record does: drop -r")
	case f.intervalMS > 0:
		return errors.New("-I: interval recordings are not written yet: record the totals without -I")
	case f.perSocket || f.perCore || f.perf.perDie || f.perf.perNode:
		return errors.New("--per-socket/--per-core/--per-die/--per-node sums are not recorded: record without them")
	case f.sim != "":
		return errors.New("--sim: simulated counts are not recorded as counters: drop --sim")
	case f.metric.report != "" || f.appendOut:
		return errors.New("--report and --append write pmc stat's own outputs: drop them with stat record")
	}
	return nil
}

// statRecording is pmc stat record's perf.data output, open before counting.
type statRecording struct {
	e    *env
	out  recordOutput
	pipe bool
}

// openStatRecording opens pmc stat record's output (nil for pmc stat); with - the
// workload's standard output goes to its standard error.
func openStatRecording(e *env, f *statFlags, req *stat.Request) (*statRecording, error) {
	if f.recordTo == "" {
		return nil, nil
	}
	out, err := openRecording(e, f.recordTo)
	if err != nil {
		return nil, err
	}
	if f.recordTo == "-" {
		req.Stdout = req.Stderr
	}
	return &statRecording{e: e, out: out, pipe: f.recordTo == "-"}, nil
}

func (r *statRecording) abort() {
	if r != nil {
		r.out.Abort()
	}
}

// finish writes res's counts of events and closes the output.
func (r *statRecording) finish(res *result.Stat, events []stat.Event) error {
	if r == nil {
		return nil
	}
	if err := statrecord.Write(r.out, r.pipe, res, events, record.HostFeatures(r.e.machine(), r.e.args)); err != nil {
		r.out.Abort()
		return fmt.Errorf("writing the recording: %w", err)
	}
	return r.out.Close()
}

func newStatReportCmd(e *env) *cobra.Command {
	f := &statFlags{}
	var input string
	cmd := &cobra.Command{
		Use:   "report [-i FILE|-] [-x SEP | --csv | --json | -j] [-o FILE]",
		Short: "print the counts of a perf stat record file (perf's or pmc's), as perf stat report does",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.changed = cmd.Flags().Changed
			return runStatReport(e, f, input)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&input, "input", "i", "perf.data", "the perf stat record file (-: standard input, perf's pipe format)")
	fl.StringVarP(&f.output, "output", "o", "", "write the counts to FILE instead of stderr")
	fl.StringVarP(&f.sep, "field-separator", "x", "", "CSV-like output with this separator (RFC 4180 quoting)")
	fl.BoolVar(&f.csv, "csv", false, "RFC 4180 CSV with a header row")
	fl.BoolVar(&f.json, "json", false, "pmc's JSON output (schema pmc.stat/v1)")
	fl.BoolVarP(&f.perf.json, "json-output", "j", false, "perf stat's JSON: one object per line")
	fl.BoolVarP(&f.bigNum, "big-num", "B", false, "group the digits of counts")
	return cmd
}

// runStatReport prints a perf stat record file with pmc stat's writers and perf's default
// metrics (none of this machine's: the recording's CPU is not known).
func runStatReport(e *env, f *statFlags, input string) error {
	pf, err := driver.Open(driver.Options{Path: input, Stdin: e.workload[0]})
	if err != nil {
		return err
	}
	defer pf.Close()
	res, err := statrecord.Read(pf)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	plan, err := newMetricPlan(&metricFlags{}, host.Empty(), host.Empty())
	if err != nil {
		return err
	}
	res.Metrics = plan.result(res)
	out, err := newStatOutput(e, f, &stat.Request{Command: res.Command}, plan)
	if err != nil {
		return usageErr(err)
	}
	return out.final(res)
}

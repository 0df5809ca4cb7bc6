package cli

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/statrun"
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
	f := &statrun.Flags{}
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
			if cmd.Flags().Changed("output") && f.Output == "" {
				return usageErr(errors.New("-o: name a file (or - for standard output)"))
			}
			// -o is the recording's; the counts are printed on stderr.
			f.Changed = func(name string) bool { return name != "output" && cmd.Flags().Changed(name) }
			f.RecordTo, f.Output = cmp.Or(f.Output, "perf.data"), ""
			if err := f.CheckRecord(); err != nil {
				return usageErr(err)
			}
			return runStat(cmd.Context(), e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false)
	registerStat(fl, f)
	fl.Lookup("output").Usage = "the perf.data file to write (default perf.data; -: standard output, perf's pipe format)"
	return cmd
}

func newStatReportCmd(e *env) *cobra.Command {
	f := &statrun.Flags{}
	var input string
	cmd := &cobra.Command{
		Use:   "report [-i FILE|-] [-x SEP | --csv | --json | -j] [-o FILE]",
		Short: "print the counts of a perf stat record file (perf's or pmc's), as perf stat report does",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.Changed = cmd.Flags().Changed
			return statErr(statrun.Report(e.statEnv(), f, input))
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&input, "input", "i", "perf.data", "the perf stat record file (-: standard input, perf's pipe format)")
	fl.StringVarP(&f.Output, "output", "o", "", "write the counts to FILE instead of stderr")
	fl.StringVarP(&f.Sep, "field-separator", "x", "", "CSV-like output with this separator (RFC 4180 quoting)")
	fl.BoolVar(&f.CSV, "csv", false, "RFC 4180 CSV with a header row")
	fl.BoolVar(&f.JSON, "json", false, "pmc's JSON output (schema pmc.stat/v1)")
	fl.BoolVarP(&f.Perf.JSON, "json-output", "j", false, "perf stat's JSON: one object per line")
	fl.BoolVarP(&f.BigNum, "big-num", "B", false, "group the digits of counts")
	return cmd
}

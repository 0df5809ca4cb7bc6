package cli

import (
	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
)

func newDiffCmd(e *env) *cobra.Command {
	o := driver.DiffReport{}
	var addr string
	var syms symbolFlags
	cmd := &cobra.Command{
		Use:   "diff [BASELINE NEW...] [options]",
		Short: "compare the profiles of perf.data files function by function, like perf diff",
		Long: `Line up the functions of a baseline recording and of one or more new recordings (perf's
or pmc's perf.data files) and show, per function, its share of the baseline (Baseline) and
how it changed in each new file (Delta Abs: the difference of percentages, largest change
first). Without files: perf.data.old vs perf.data, as perf diff.
Unlike perf diff, the main programs' functions are matched by name across differently named
executables (./naive vs ./interchange give one row per function); shared libraries and the
kernel by shared object and name. --sort dso,sym is perf diff's matching, --sort sym
matches by name alone. With call chains (-g) a second table compares the inclusive
(children) shares. --json writes pmc.diff/v1. --http serves NEW against BASELINE in
pprof's web interface (values normalized to the baseline's total, so a function's percentage
is its Delta Abs).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Load, o.Paths, o.Explicit = syms.options(e, ""), args, cmd.Flags().Changed("call-graph")
			if cmd.Flags().Changed("http") {
				return runDiffHTTP(cmd, e, addr, o)
			}
			o.Stdout, o.Warn = e.stdout, warner(e, "diff")
			return driver.WriteDiff(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.Sort, "sort", "s", "", "match rows by sym or dso,sym (default: main programs by sym, the rest by dso,sym)")
	fl.StringVarP(&o.Compute, "compute", "c", "delta-abs", "the change column: delta-abs, delta, ratio or wdiff:W1,W2")
	fl.BoolVar(&o.JSON, "json", false, "write JSON (schema pmc.diff/v1)")
	fl.BoolVarP(&o.CallGraph, "call-graph", "g", false, "also compare children (inclusive) shares (default: when every file has call chains)")
	fl.StringVarP(&o.Output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVarP(&o.Event, "event", "e", "", "compare this event (default: the baseline's first event with samples)")
	syms.add(fl)
	httpFlag(cmd, &addr)
	return cmd
}

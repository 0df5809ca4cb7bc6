package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/profdiff"
)

// diffFlags are the raw flag values of `pmc diff`.
type diffFlags struct {
	syms      symbolFlags
	sort      string
	compute   string
	json      bool
	callGraph bool
	output    string
	event     string
	http      string
	changed   func(string) bool
}

func newDiffCmd(e *env) *cobra.Command {
	f := &diffFlags{}
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
			f.changed = cmd.Flags().Changed
			if f.changed("http") {
				return runDiffHTTP(cmd, e, f, args)
			}
			return runDiff(e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.sort, "sort", "s", "", "match rows by sym or dso,sym (default: main programs by sym, the rest by dso,sym)")
	fl.StringVarP(&f.compute, "compute", "c", "delta-abs", "the change column: delta-abs, delta, ratio or wdiff:W1,W2")
	fl.BoolVar(&f.json, "json", false, "write JSON (schema pmc.diff/v1)")
	fl.BoolVarP(&f.callGraph, "call-graph", "g", false, "also compare children (inclusive) shares (default: when every file has call chains)")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVarP(&f.event, "event", "e", "", "compare this event (default: the baseline's first event with samples)")
	f.syms.add(fl)
	httpFlag(cmd, &f.http)
	return cmd
}

func runDiff(e *env, f *diffFlags, args []string) error {
	match, err := profdiff.ParseMatch(f.sort)
	if err != nil {
		return usageErr(err)
	}
	comp, err := profdiff.ParseCompute(f.compute)
	if err != nil {
		return usageErr(err)
	}
	switch len(args) {
	case 0:
		args = []string{"perf.data.old", "perf.data"}
	case 1:
		return usageErr(errors.New("give the baseline and at least one new file (or none: perf.data.old vs perf.data)"))
	}
	out := e.stdout
	var of *outfile.File
	if f.output != "" {
		if of, err = outfile.Create(f.output, outfile.Replace); err != nil {
			return err
		}
		defer of.Abort() // a no-op once closed
		out = of
	}
	files, warnings, err := driver.Diff(driver.DiffOptions{Load: f.syms.options(e, ""), Paths: args, Event: f.event,
		CallGraph: f.callGraph, Explicit: f.changed("call-graph")})
	warn(e, "diff", warnings)
	if err != nil {
		return err
	}
	d := profdiff.Build(files, match, comp)
	if f.json {
		err = d.WriteJSON(out)
	} else {
		err = d.WriteText(out)
	}
	if err != nil || of == nil {
		return err
	}
	return of.Close()
}

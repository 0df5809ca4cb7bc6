package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/comparerun"
	"github.com/pmc-tools/pmc/internal/statrun"
	"github.com/pmc-tools/pmc/internal/unix"
)

// compareFlags are the flags of `pmc compare`. The event and metric flags are pmc stat's
// own, so that events, metrics, defaults and fallbacks are chosen by the same code.
type compareFlags struct {
	stat                            statrun.Flags // -e, -M, --metric-group, --metrics-file, -r, --warmup, --duration
	fakes                           []string      // hidden: one fake spec per command (tests)
	names                           []string
	shell, noInterleave, showOutput bool
	json, csv, markdown             bool
	output, html, region            string
	timeout                         time.Duration
}

func newCompareCmd(e *env) *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare [options] 'CMD A' 'CMD B' ... | A.json B.json ...",
		Short: "run commands (or read saved results) side by side, with statistics and charts",
		Long: `Run each command -r times, interleaved A B A B ..., counting pmc stat's events (-e, -M,
the same defaults), and compare each with the first: mean ± standard deviation, min … max,
the change with its 95% confidence interval (Fieller's, of the ratio), the ratio and whether it is
significant; outliers (Tukey's fences) flagged. Each command is one argument, split into
words without a shell (quotes group words); --shell runs it with sh -c.
Given files ending in .json, compares saved results (pmc stat --json, pmc compare --json,
include/pmc.h's files) instead, and says in the header how their CPU, kernel, simulated
caches or event encodings differ. The regions of include/pmc.h files compare region by
region; --region NAME compares one region with whole-program results.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.stat.Changed = cmd.Flags().Changed
			return runCompare(e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.stat.Events, "event", "e", nil, "events to count, as in pmc stat (default: pmc stat's)")
	fl.IntVarP(&f.stat.Repeat, "runs", "r", 5, "measured runs of each command")
	fl.DurationVar(&f.stat.Duration, "duration", 0, "instead of -r: keep running rounds until this much time has passed (at least 2 rounds)")
	fl.IntVar(&f.stat.Warmup, "warmup", 0, "uncounted runs of each command first")
	fl.DurationVar(&f.timeout, "timeout", 0, "end a run still going after this long (SIGTERM, as perf stat --timeout): it fails and is left out, e.g. --timeout 30s")
	fl.BoolVar(&f.noInterleave, "no-interleave", false, "run each command's runs in one block instead of A B A B ...")
	fl.BoolVar(&f.shell, "shell", false, "run each command with sh -c")
	fl.StringArrayVarP(&f.names, "name", "n", nil, "label of a command (repeatable, in order; default A, B, C ...)")
	fl.BoolVar(&f.showOutput, "show-output", false, "let the commands write to pmc's stdout and stderr (default: /dev/null)")
	fl.BoolVar(&f.json, "json", false, "JSON output with every run (schema pmc.compare/v1, docs/json-schema.md)")
	fl.BoolVar(&f.csv, "csv", false, "RFC 4180 CSV, one line per quantity and command")
	fl.BoolVar(&f.markdown, "markdown", false, "a Markdown table")
	fl.StringVarP(&f.output, "output", "o", "", "write the comparison to FILE instead of stdout")
	fl.StringVar(&f.html, "html", "", "also write a self-contained HTML page with charts to FILE")
	fl.StringVar(&f.region, "region", "", "saved include/pmc.h files: compare this region of each (with whole-program results too); without it their regions compare region by region")
	fl.StringVar(&f.stat.Sim, "sim", "", "SIMULATE instead of counting, as pmc stat --sim (cachegrind); labelled SIMULATED")
	fl.Lookup("sim").NoOptDefVal = "cachegrind"
	fl.StringVar(&f.stat.SimCache, "sim-cache", "", "with --sim: cache geometry, as pmc stat --sim-cache")
	fl.StringArrayVar(&f.fakes, "fake", nil, "use the fake backend scripted by FILE for the next command (tests)")
	fl.MarkHidden("fake")
	fl.StringSliceVarP(&f.stat.Metric.Metrics, "metrics", "M", nil, "compute these metrics or metric groups, as in pmc stat")
	fl.StringSliceVar(&f.stat.Metric.Groups, "metric-group", nil, "compute the metrics of these groups")
	fl.StringVar(&f.stat.Metric.File, "metrics-file", "", "add the metric definitions of this JSON file")
	fl.StringVar(&f.stat.Metric.FakeMachine, "fake-machine", "", "take the CPU, PMU and host facts from FILE (tests)")
	fl.MarkHidden("fake-machine")
	return cmd
}

// check validates the flags that do not depend on the mode and returns the output format.
func (f *compareFlags) check() (comparerun.Format, error) {
	format, err := comparerun.FormatOf(f.json, f.csv, f.markdown)
	switch {
	case err != nil:
		return format, err
	case f.stat.Changed("output") && f.output == "":
		return format, errors.New("-o: name a file")
	case f.stat.Changed("html") && f.html == "":
		return format, errors.New("--html: name a file")
	case f.stat.Changed("timeout") && f.timeout <= 0:
		return format, fmt.Errorf("--timeout %v: give a positive time, e.g. --timeout 30s", f.timeout)
	}
	return format, nil
}

// checkRuns validates the flags that say how often n commands run.
func (f *compareFlags) checkRuns(n int) error {
	s := &f.stat
	switch {
	case s.Repeat < 1:
		return fmt.Errorf("-r %d: give at least 1 run (2 or more for a confidence interval)", s.Repeat)
	case s.Warmup < 0:
		return fmt.Errorf("--warmup %d: must be 0 or more", s.Warmup)
	case s.Changed("duration") && s.Duration <= 0:
		return fmt.Errorf("--duration %v: give a positive time, e.g. --duration 10s", s.Duration)
	case s.Changed("runs") && s.Changed("duration"):
		return errors.New("-r and --duration both say how long: choose one")
	case len(f.fakes) > 0 && len(f.fakes) != n:
		return fmt.Errorf("--fake: %d scripts for %d commands: give one per command", len(f.fakes), n)
	}
	return nil
}

func runCompare(e *env, f *compareFlags, args []string) error {
	format, err := f.check()
	if err != nil {
		return usageErr(err)
	}
	saved, err := comparerun.Inputs(args, f.names, f.region)
	if err != nil {
		return usageErr(err)
	}
	out := comparerun.Output{File: f.output, HTML: f.html, Format: format, Stdout: e.stdout, Stderr: e.stderr}
	end, err := comparerun.Run(out, !saved, func(ctx context.Context) (*compare.Comparison, error, error) {
		if saved {
			c, err := readSaved(e, f, args)
			return c, nil, err
		}
		return measureCompare(ctx, e, f, args)
	})
	switch {
	case err != nil:
		return err
	case end.Signal != 0:
		return &exitError{code: 128 + end.Signal, err: end.Failed}
	case end.Failed != nil:
		return &exitError{code: 1, err: end.Failed}
	}
	return nil
}

// isTerminal reports whether w is a terminal (colour, a progress bar).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && unix.IsTerminal(int(f.Fd()))
}

// label is the name of command i: its -n name, or A, B, C ...
func (f *compareFlags) label(i int) string { return comparerun.Label(f.names, i) }

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/comparerun"
	"github.com/pmc-tools/pmc/internal/unix"
)

// compareFlags are the flags of `pmc compare`. The event and metric flags are pmc stat's
// own, so that events, metrics, defaults and fallbacks are chosen by the same code.
type compareFlags struct {
	stat         statFlags // -e, -M, --metric-group, --metrics-file, -r, --warmup, --duration
	fakes        []string  // hidden: one fake spec per command (tests)
	names        []string
	shell        bool
	noInterleave bool
	showOutput   bool
	json         bool
	csv          bool
	markdown     bool
	output       string
	html         string
	region       string
	timeout      time.Duration
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
			f.stat.changed = cmd.Flags().Changed
			return runCompare(e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.stat.events, "event", "e", nil, "events to count, as in pmc stat (default: pmc stat's)")
	fl.IntVarP(&f.stat.repeat, "runs", "r", 5, "measured runs of each command")
	fl.DurationVar(&f.stat.duration, "duration", 0, "instead of -r: keep running rounds until this much time has passed (at least 2 rounds)")
	fl.IntVar(&f.stat.warmup, "warmup", 0, "uncounted runs of each command first")
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
	fl.StringVar(&f.stat.sim, "sim", "", "SIMULATE instead of counting, as pmc stat --sim (cachegrind); labelled SIMULATED")
	fl.Lookup("sim").NoOptDefVal = "cachegrind"
	fl.StringVar(&f.stat.simCache, "sim-cache", "", "with --sim: cache geometry, as pmc stat --sim-cache")
	fl.StringArrayVar(&f.fakes, "fake", nil, "use the fake backend scripted by FILE for the next command (tests)")
	fl.MarkHidden("fake")
	fl.StringSliceVarP(&f.stat.metric.metrics, "metrics", "M", nil, "compute these metrics or metric groups, as in pmc stat")
	fl.StringSliceVar(&f.stat.metric.groups, "metric-group", nil, "compute the metrics of these groups")
	fl.StringVar(&f.stat.metric.file, "metrics-file", "", "add the metric definitions of this JSON file")
	fl.StringVar(&f.stat.metric.fakeMachine, "fake-machine", "", "take the CPU, PMU and host facts from FILE (tests)")
	fl.MarkHidden("fake-machine")
	return cmd
}

// check validates the flags that do not depend on the mode.
func (f *compareFlags) check() error {
	formats := 0
	for _, b := range []bool{f.json, f.csv, f.markdown} {
		if b {
			formats++
		}
	}
	switch {
	case formats > 1:
		return errors.New("--json, --csv and --markdown each choose the output: use one (and --html for the page)")
	case f.stat.changed("output") && f.output == "":
		return errors.New("-o: name a file")
	case f.stat.changed("html") && f.html == "":
		return errors.New("--html: name a file")
	case f.stat.changed("timeout") && f.timeout <= 0:
		return fmt.Errorf("--timeout %v: give a positive time, e.g. --timeout 30s", f.timeout)
	}
	return nil
}

func runCompare(e *env, f *compareFlags, args []string) error {
	if err := f.check(); err != nil {
		return usageErr(err)
	}
	saved, err := comparerun.SavedArgs(args)
	if err != nil {
		return usageErr(err)
	}
	if !saved && len(f.names) > len(args) { // a saved comparison holds several: readSaved checks
		return usageErr(fmt.Errorf("-n: %d names for %d commands", len(f.names), len(args)))
	}
	if !saved && f.region != "" {
		return usageErr(errors.New("--region names a region of saved include/pmc.h files: give .json files"))
	}
	// Output files first: one that cannot be written stops pmc before anything runs.
	outs, err := comparerun.CreateOutputs(f.output, f.html)
	if err != nil {
		return usageErr(err)
	}
	var c *compare.Comparison
	var failed error
	interrupt := 0 // the signal that stopped the measurement
	if saved {
		c, err = readSaved(e, f, args)
	} else {
		ctx, stop := comparerun.Interruptible(e.stderr, outs.Abort, &interrupt)
		c, failed, err = measureCompare(ctx, e, f, args)
		stop()
	}
	if err != nil {
		outs.Abort()
		return err
	}
	if err := outs.Write(c, f.format(), e.stdout, isTerminal(e.stdout), e.stderr); err != nil {
		return &exitError{code: 1, err: err}
	}
	switch {
	case interrupt != 0:
		return &exitError{code: 128 + interrupt, err: failed}
	case failed != nil:
		return &exitError{code: 1, err: failed}
	}
	return nil
}

// format is the output the flags choose.
func (f *compareFlags) format() comparerun.Format {
	switch {
	case f.json:
		return comparerun.JSON
	case f.csv:
		return comparerun.CSV
	case f.markdown:
		return comparerun.Markdown
	}
	return comparerun.Text
}

// isTerminal reports whether w is a terminal (colour, a progress bar).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && unix.IsTerminal(int(f.Fd()))
}

// label is the name of command i: its -n name, or A, B, C ...
func (f *compareFlags) label(i int) string { return comparerun.Label(f.names, i) }

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/comparehtml"
	"github.com/pmc-tools/pmc/internal/outfile"
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

// savedArgs reports whether the arguments name saved results: every one ends in .json.
func savedArgs(args []string) (bool, error) {
	n := 0
	for _, a := range args {
		if strings.HasSuffix(strings.ToLower(a), ".json") && !strings.ContainsAny(a, " \t") {
			n++
		}
	}
	if n > 0 && n < len(args) {
		return false, fmt.Errorf("%d of the %d arguments are .json files: compare either saved results or commands, not both", n, len(args))
	}
	return n > 0, nil
}

func runCompare(e *env, f *compareFlags, args []string) error {
	if err := f.check(); err != nil {
		return usageErr(err)
	}
	saved, err := savedArgs(args)
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
	var out, page *outfile.File
	if f.output != "" {
		if out, err = outfile.Create(f.output, outfile.Replace); err != nil {
			return usageErr(fmt.Errorf("-o: %w", err))
		}
	}
	if f.html != "" {
		if page, err = outfile.Create(f.html, outfile.Replace); err != nil {
			if out != nil {
				out.Abort()
			}
			return usageErr(fmt.Errorf("--html: %w", err))
		}
	}
	abort := func() {
		for _, o := range []*outfile.File{out, page} {
			if o != nil {
				o.Abort()
			}
		}
	}
	var c *compare.Comparison
	var failed error
	interrupt := 0 // the signal that stopped the measurement
	if saved {
		if f.stat.changed("timeout") {
			abort()
			return usageErr(errors.New("--timeout limits the runs of commands: saved results are compared as they are"))
		}
		c, err = readSaved(e, f, args)
	} else {
		ctx, stop := interruptible(e, abort, &interrupt)
		c, failed, err = measureCompare(ctx, e, f, args)
		stop()
	}
	if err != nil {
		abort()
		return err
	}
	compare.Build(c)
	var w io.Writer = e.stdout
	if out != nil {
		w = out
	}
	werr := writeComparison(w, f, c, out == nil && isTerminal(e.stdout))
	if page != nil && werr == nil {
		if werr = comparehtml.Write(page, c); werr == nil {
			werr = page.Close()
		}
	}
	if out != nil && werr == nil {
		werr = out.Close()
	}
	if werr != nil {
		abort()
		return &exitError{code: 1, err: werr}
	}
	for _, p := range []*outfile.File{out, page} {
		if p != nil {
			fmt.Fprintf(e.stderr, "pmc: comparison written to %s\n", p.Name())
		}
	}
	switch {
	case interrupt != 0:
		return &exitError{code: 128 + interrupt, err: failed}
	case failed != nil:
		return &exitError{code: 1, err: failed}
	}
	return nil
}

// interruptible handles Ctrl-C (and SIGTERM, SIGHUP) while commands are compared: the first
// cancels the context, which ends the run in progress (the launcher also passes the signal
// to the command) and stops the comparison, to be written with what was measured; sig then
// holds the signal's number. A second one aborts the output files and exits at once with
// 128+N. stop ends the handling.
func interruptible(e *env, abort func(), sig *int) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, unix.SIGTERM, unix.SIGHUP)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		var first os.Signal
		select {
		case first = <-sigs:
		case <-done:
			return
		}
		*sig = int(first.(unix.Signal))
		cancel()
		select {
		case again := <-sigs:
			abort()
			fmt.Fprintf(e.stderr, "pmc: %v again: exiting without the comparison\n", again)
			os.Exit(128 + int(again.(unix.Signal)))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		<-finished
		cancel()
	}
}

func writeComparison(w io.Writer, f *compareFlags, c *compare.Comparison, tty bool) error {
	switch {
	case f.json:
		return compare.JSON(w, c)
	case f.csv:
		return compare.CSV(w, c)
	case f.markdown:
		return compare.Markdown(w, c)
	}
	return compare.Text(w, c, compare.TextOptions{Color: tty && os.Getenv("NO_COLOR") == ""})
}

// isTerminal reports whether w is a terminal (colour, a progress bar).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && unix.IsTerminal(int(f.Fd()))
}

// label is the name of command i: its -n name, or A, B, C ...
func (f *compareFlags) label(i int) string {
	if i < len(f.names) && f.names[i] != "" {
		return f.names[i]
	}
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("C%d", i+1)
}

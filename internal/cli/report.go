package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/proffmt"
	"github.com/pmc-tools/pmc/internal/profile"
)

// reportFlags are the raw flag values of `pmc report`.
type reportFlags struct {
	input         string
	stdio         bool
	sort          string
	children      bool
	noChildren    bool
	callGraph     string
	percentLimit  float64
	json          bool
	folded        bool
	pprof         string
	html          string
	output        string
	syms          symbolFlags
	event         string
	group         bool
	noGroup       bool
	branchStack   bool
	noBranchStack bool
	http          string
	stats         bool
	header        bool
	headerOnly    bool
	fields        string
	keysOnly      bool // -F without overhead: no percentages, entries in key order
	selfOnly      bool // -F overhead,...: the self percentage alone
	tasks         bool
	changed       func(string) bool
}

func newReportCmd(e *env) *cobra.Command {
	f := &reportFlags{}
	cmd := &cobra.Command{
		Use:   "report [-i FILE] [options]",
		Short: "show where the samples of a perf.data file (perf's or pmc's) went, like perf report --stdio",
		Long: `Read a perf.data file written by perf record or pmc record and show the samples per
command, shared object and symbol the way perf report --stdio does, with the same
percentages. Call graphs are shown when the file has call chains (-g none hides them,
-g caller or callee orders them), with a Children column unless --no-children. As perf:
a file with event groups is shown a report per group (--no-group: per event), one with
branch stacks as its branches (--no-branch-stack: where samples hit). -i - reads perf's
pipe format from standard input (perf record -o - | pmc report -i -). Symbols come from the binaries the file names
when their build-ids match, else from the archive pmc record --embed-symbols wrote beside
the file (FILE.pmcsym). Kernel symbols come from --kallsyms FILE or --vmlinux FILE, else
the archive, else /proc/kallsyms when the running kernel is the recorded one (same
build-id, or the file names none), as perf report decides: a recording of another kernel
keeps its kernel addresses.
Exports: --json (pmc.report/v1), --folded stacks, --pprof FILE, --html FILE (flame graph).
--http serves the interactive view (pprof's web interface, pmc's symbols and disassembler).`,
		Args: func(cmd *cobra.Command, args []string) error {
			// perf's -g takes its value as the next word too (-g caller): pmc's -g, whose
			// value is optional, leaves it as an argument.
			if len(args) == 1 && cmd.Flags().Changed("call-graph") && f.callGraph == "caller" {
				if _, err := parseCallGraph(args[0]); err == nil {
					f.callGraph = args[0]
					return nil
				}
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f.changed = cmd.Flags().Changed
			if f.changed("http") {
				return runReportHTTP(cmd, e, f)
			}
			return runReport(e, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.input, "input", "i", "perf.data", "the perf.data file to read (-: standard input, as perf record -o - writes it)")
	fl.BoolVar(&f.stdio, "stdio", false, "write the text report (the default when no other format is chosen)")
	fl.StringVarP(&f.sort, "sort", "s", strings.Join(profile.DefaultSort, ","), "group by these keys: "+strings.Join(profile.SortKeys, ","))
	fl.BoolVar(&f.children, "children", false, "add each sample's period to its callers too (the default with call chains)")
	fl.BoolVar(&f.noChildren, "no-children", false, "self period only")
	fl.StringVarP(&f.callGraph, "call-graph", "g", "", "show call graphs: caller (a bare -g, as perf), callee, none (default: callee with --no-children, when the file has call chains)")
	fl.Lookup("call-graph").NoOptDefVal = "caller"
	fl.Float64Var(&f.percentLimit, "percent-limit", 0, "hide entries below this percentage")
	fl.BoolVar(&f.json, "json", false, "write the report as JSON (schema pmc.report/v1)")
	fl.BoolVar(&f.folded, "folded", false, "write collapsed stacks weighed by period (flamegraph.pl, inferno, speedscope)")
	fl.StringVar(&f.pprof, "pprof", "", "write a gzipped pprof profile to this file")
	fl.StringVar(&f.html, "html", "", "write a self-contained flame graph page to this file")
	fl.StringVarP(&f.output, "output", "o", "", "write the text, JSON or folded output to this file instead of stdout")
	f.syms.add(fl)
	fl.StringVarP(&f.event, "event", "e", "", "the event --folded and --html show (needed when the file has samples of several; --pprof has them all)")
	fl.BoolVar(&f.group, "group", false, "show each event group as one report, a column per member (the default when the file has groups)")
	fl.BoolVar(&f.noGroup, "no-group", false, "show a group's events one by one")
	fl.BoolVar(&f.branchStack, "branch-stack", false, "report the samples' branch stacks: source and target of each branch (the default when samples have them)")
	fl.BoolVar(&f.noBranchStack, "no-branch-stack", false, "report where samples hit even when they have branch stacks")
	fl.StringVarP(&f.fields, "fields", "F", "", "show these columns (perf's -F): sort keys, optionally after overhead; without overhead no percentages, entries in the order of their keys")
	fl.BoolVar(&f.header, "header", false, "print the file's header first (perf report --header: its layout, its features, those it lacks)")
	fl.BoolVar(&f.headerOnly, "header-only", false, "print the file's header alone")
	fl.BoolVar(&f.stats, "stats", false, "print the file's records counted by type and each event's samples (perf report --stats), no report")
	fl.BoolVar(&f.tasks, "tasks", false, "list the recorded threads as a tree of who forked whom (perf report --tasks), nothing else")
	fl.BoolVar(&f.tasks, "task", false, "--tasks")
	fl.MarkHidden("task") // perf takes any unambiguous prefix of --tasks
	httpFlag(cmd, &f.http)
	return cmd
}

// symbolFlags are where report, annotate and diff find symbols (perf's --symfs,
// --kallsyms and --vmlinux).
type symbolFlags struct {
	symfs, kallsyms, vmlinux string
}

func (s *symbolFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&s.kallsyms, "kallsyms", "", "kernel symbols from this kallsyms file (whatever kernel was recorded)")
	fl.StringVarP(&s.vmlinux, "vmlinux", "k", "", "kernel symbols from this kernel image (its build-id must be the recorded kernel's)")
	fl.StringVar(&s.symfs, "symfs", "", "look for the binaries under this directory instead of / (and not at this machine's kernel)")
}

// options are the driver's options for the recording at path, on e's machine.
func (s *symbolFlags) options(e *env, path string) driver.Options {
	return driver.Options{Path: path, Symfs: s.symfs, Kallsyms: s.kallsyms, Vmlinux: s.vmlinux,
		Machine: func() driver.Machine { return e.machine() }, Stdin: e.workload[0]} // -i -
}

// load runs the driver and says its warnings on e's stderr, as pmc cmd.
func load(e *env, cmd string, o driver.Options) (*driver.Result, error) {
	r, err := driver.Load(o)
	if err != nil {
		return nil, err
	}
	warn(e, cmd, r.Warnings)
	return r, nil
}

func warn(e *env, cmd string, warnings []string) {
	for _, w := range warnings {
		warnf(e.stderr, "pmc %s: %s", cmd, w)
	}
}

// reportOutputs are the files a report writes, all opened before the input is read.
type reportOutputs struct {
	main        io.Writer
	file        *outfile.File // -o
	pprof, html *outfile.File
}

func (o *reportOutputs) abort() {
	for _, f := range []*outfile.File{o.file, o.pprof, o.html} {
		if f != nil {
			f.Abort()
		}
	}
}

func (o *reportOutputs) close() error {
	var first error
	for _, f := range []*outfile.File{o.file, o.pprof, o.html} {
		if f != nil {
			if err := f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (f *reportFlags) validate() ([]string, error) {
	if f.children && f.noChildren {
		return nil, errors.New("--children and --no-children: choose one")
	}
	if f.branchStack && f.noBranchStack {
		return nil, errors.New("--branch-stack and --no-branch-stack: choose one")
	}
	if f.group && f.noGroup {
		return nil, errors.New("--group and --no-group: choose one")
	}
	if f.json && f.folded {
		return nil, errors.New("--json and --folded both write to stdout (or -o): choose one")
	}
	if f.tasks && (f.json || f.folded || f.pprof != "" || f.html != "") {
		return nil, errors.New("--tasks lists the threads only: drop --json, --folded, --pprof and --html")
	}
	if err := checkPercentLimit(f.percentLimit); err != nil {
		return nil, err
	}
	sort := f.sort
	if f.fields != "" {
		var err error
		if sort, err = f.parseFields(); err != nil {
			return nil, err
		}
	}
	var keys []string
	for _, k := range strings.Split(sort, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	if err := profile.CheckSort(keys); err != nil {
		return nil, err
	}
	return keys, nil
}

// parseFields reads -F: perf's output fields, of which pmc shows sort keys, optionally
// after overhead (the samples' own period). It returns the sort keys.
func (f *reportFlags) parseFields() (string, error) {
	if f.changed("sort") {
		return "", errors.New("-F and --sort: give the keys with one of them (-F shows them in its order)")
	}
	keys, overhead := strings.CutPrefix(f.fields, "overhead,")
	if keys == "" || strings.Contains(","+keys+",", ",overhead") || strings.HasPrefix(keys, "+") {
		return "", fmt.Errorf("-F %s: give sort keys (%s), optionally after overhead", f.fields, strings.Join(profile.SortKeys, ","))
	}
	f.selfOnly, f.keysOnly = overhead, !overhead
	return keys, nil
}

func runReport(e *env, f *reportFlags) error {
	keys, err := f.validate()
	if err != nil {
		return usageErr(err)
	}
	if f.stats || f.headerOnly {
		return runReportStats(e, f)
	}
	if f.header && f.input == "-" {
		return usageErr(errors.New("--header with -i -: standard input is read once, for the header or the report: use --header-only, or a file"))
	}
	if f.header && (f.json || f.folded || f.pprof != "" || f.html != "") {
		return usageErr(errors.New("--header goes with the text report: drop --json, --folded, --pprof or --html"))
	}
	cg, err := parseCallGraph(f.callGraph)
	if err != nil {
		return usageErr(err)
	}
	if f.tasks {
		return runTasks(e, f)
	}
	out := &reportOutputs{main: e.stdout}
	ok := false
	defer func() {
		if !ok {
			out.abort()
		}
	}()
	if f.output != "" {
		if out.file, err = outfile.Create(f.output, outfile.Replace); err != nil {
			return err
		}
		out.main = out.file
	}
	if f.pprof != "" {
		if out.pprof, err = outfile.Create(f.pprof, outfile.Replace); err != nil {
			return err
		}
	}
	if f.html != "" {
		if out.html, err = outfile.Create(f.html, outfile.Replace); err != nil {
			return err
		}
	}
	// A report's live heap (call trees, symbol tables) only grows: collect half as often
	// (unless GOGC says otherwise).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(200))
	}
	// Source lines cost a DWARF parse per binary: only srcline and pprof show them.
	lines := f.pprof != "" || f.json || slices.Contains(keys, "srcline")
	text := f.stdio || (!f.json && !f.folded && f.pprof == "" && f.html == "")
	// The text and JSON reports aggregate the samples as they are read; only the exports
	// keep them.
	var agg *profile.Aggregator
	lo := f.syms.options(e, f.input)
	lo.Lines, lo.Keep = lines, f.folded || f.pprof != "" || f.html != ""
	lo.Aggregate = func(in driver.Input) (*profile.Aggregator, error) {
		if !text && !f.json {
			return nil, nil
		}
		// perf reading a pipe decides on children before it sees the events: none.
		o := profile.Options{Sort: keys, Children: in.Chains && !in.Pipe && !f.noChildren, PercentLimit: f.percentLimit,
			CallGraph: in.Chains, ShownGraph: !f.json, KeysOnly: f.keysOnly, SelfOnly: f.selfOnly}
		if f.children {
			o.Children = true
		}
		// perf orders its graphs from the caller when it means to show children; reading a
		// pipe, it shows none but keeps that order.
		o.CallerOrder = in.Pipe && in.Chains && !f.noChildren && !o.Children
		if f.changed("call-graph") {
			o.CallGraph, o.CallerOrder = cg.on, cg.caller
		}
		// perf's branch view is its default when samples have branch stacks.
		o.Branch = f.branchStack || in.Branches && !f.noBranchStack
		a, err := profile.NewAggregator(o)
		if err != nil {
			return nil, usageErr(err)
		}
		agg = a
		return a, nil
	}
	if f.header {
		if err := writeHeader(e, f, out.main); err != nil {
			return err
		}
	}
	r, err := load(e, "report", lo)
	if err != nil {
		return err
	}
	p := r.Profile
	if err := writeReports(out, p, agg, f, text); err != nil {
		return err
	}
	ok = true
	return out.close()
}

func writeReports(out *reportOutputs, p *profile.Profile, agg *profile.Aggregator, f *reportFlags, text bool) error {
	var reports []*profile.Report
	if agg != nil {
		all := agg.Reports(p)
		for _, r := range all {
			if r.Event.Samples > 0 || len(all) == 1 { // perf skips events without samples (dummy)
				reports = append(reports, r)
			}
		}
	}
	// Folded stacks and the flame graph show one event: --event's, or the only one.
	var ev int
	if f.folded || f.html != "" {
		var err error
		if ev, err = p.OneEvent(f.event); err != nil {
			return usageErr(err)
		}
	}
	if !f.noGroup && (f.group || p.HasGroups()) && !f.json {
		reports = profile.Group(p, reports)
	}
	switch {
	case f.json:
		if err := proffmt.JSON(out.main, p, reports); err != nil {
			return err
		}
	case f.folded:
		if err := proffmt.Folded(out.main, p, proffmt.FoldedOptions{Event: ev, Period: true}); err != nil {
			return err
		}
	case text && f.header:
		if err := proffmt.TextAfterHeader(out.main, p, reports); err != nil {
			return err
		}
	case text:
		if err := proffmt.Text(out.main, p, reports); err != nil {
			return err
		}
	}
	if out.pprof != nil {
		if err := proffmt.Pprof(out.pprof, p); err != nil {
			return err
		}
	}
	if out.html != nil {
		if err := proffmt.HTML(out.html, p, ev, "pmc report "+filepath.Base(f.input)); err != nil {
			return err
		}
	}
	return nil
}

// runReportStats prints the file's header (--header, --header-only) and perf report
// --stats's counts of its records, no report.
func runReportStats(e *env, f *reportFlags) error {
	if f.header || f.headerOnly {
		if f.stats && f.input == "-" {
			return usageErr(errors.New("--header with --stats and -i -: standard input is read once: give a file"))
		}
		if err := writeHeader(e, f, e.stdout); err != nil {
			return err
		}
	}
	if !f.stats {
		return nil
	}
	st, names, aux, err := driver.Stats(f.syms.options(e, f.input))
	if err != nil {
		return err
	}
	return proffmt.Stats(e.stdout, st, names, aux)
}

// writeHeader writes perf report --header's lines of the file.
func writeHeader(e *env, f *reportFlags, w io.Writer) error {
	pf, events, captured, err := driver.Header(f.syms.options(e, f.input))
	if err != nil {
		return err
	}
	return proffmt.Header(w, pf, proffmt.HeaderInfo{Captured: captured, Events: events})
}

// callGraph is -g's value: perf's "graph,0.5,caller" and its short forms.
type callGraph struct{ on, caller bool }

func parseCallGraph(v string) (callGraph, error) {
	cg := callGraph{on: true, caller: true}
	for _, w := range strings.Split(v, ",") {
		switch w {
		case "", "graph", "true", "caller", "function":
		case "callee":
			cg.caller = false
		case "none", "false":
			cg.on = false
		default:
			if x, err := strconv.ParseFloat(w, 64); err != nil || x != 0.5 {
				return cg, fmt.Errorf("-g %s: give caller, callee or none (perf's graph,0.5,caller form works too; the threshold is 0.5 only)", v)
			}
		}
	}
	return cg, nil
}

// runTasks prints the recording's threads (--tasks) to stdout or -o.
func runTasks(e *env, f *reportFlags) error {
	t, err := driver.Tasks(f.syms.options(e, f.input))
	if err != nil {
		return err
	}
	if f.output == "" {
		return proffmt.Tasks(e.stdout, t)
	}
	out, err := outfile.Create(f.output, outfile.Replace)
	if err != nil {
		return err
	}
	if err := proffmt.Tasks(out, t); err != nil {
		out.Abort()
		return err
	}
	return out.Close()
}

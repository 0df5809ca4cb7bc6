package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/proffmt"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// reportFlags are the raw flag values of `pmc report`.
type reportFlags struct {
	input        string
	stdio        bool
	sort         string
	children     bool
	noChildren   bool
	callGraph    bool
	percentLimit float64
	json         bool
	folded       bool
	pprof        string
	html         string
	output       string
	kallsyms     string
	symfs        string
	changed      func(string) bool
}

func newReportCmd(e *env) *cobra.Command {
	f := &reportFlags{}
	cmd := &cobra.Command{
		Use:   "report [-i FILE] [options]",
		Short: "show where the samples of a perf.data file (perf's or pmc's) went, like perf report --stdio",
		Long: `Read a perf.data file written by perf record or pmc record and show the samples per
command, shared object and symbol the way perf report --stdio does, with the same
percentages. Call graphs are shown when the file has call chains (-g=false hides them),
with a Children column unless --no-children. Symbols come from the binaries the file names
when their build-ids match, else from the archive pmc record --embed-symbols wrote beside
the file (FILE.pmcsym); kernel symbols from /proc/kallsyms (or --kallsyms FILE).
Exports: --json (pmc.report/v1), --folded stacks, --pprof FILE, --html FILE (flame graph).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.changed = cmd.Flags().Changed
			return runReport(e, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.input, "input", "i", "perf.data", "the perf.data file to read")
	fl.BoolVar(&f.stdio, "stdio", false, "write the text report (the default when no other format is chosen)")
	fl.StringVarP(&f.sort, "sort", "s", strings.Join(profile.DefaultSort, ","), "group by these keys: "+strings.Join(profile.SortKeys, ","))
	fl.BoolVar(&f.children, "children", false, "add each sample's period to its callers too (the default with call chains)")
	fl.BoolVar(&f.noChildren, "no-children", false, "self period only")
	fl.BoolVarP(&f.callGraph, "call-graph", "g", false, "show call graphs (default: when the file has call chains)")
	fl.Float64Var(&f.percentLimit, "percent-limit", 0, "hide entries below this percentage")
	fl.BoolVar(&f.json, "json", false, "write the report as JSON (schema pmc.report/v1)")
	fl.BoolVar(&f.folded, "folded", false, "write collapsed stacks (flamegraph.pl, inferno, speedscope)")
	fl.StringVar(&f.pprof, "pprof", "", "write a gzipped pprof profile to this file")
	fl.StringVar(&f.html, "html", "", "write a self-contained flame graph page to this file")
	fl.StringVarP(&f.output, "output", "o", "", "write the text, JSON or folded output to this file instead of stdout")
	fl.StringVar(&f.kallsyms, "kallsyms", "", "kernel symbols from this file instead of /proc/kallsyms")
	fl.StringVar(&f.symfs, "symfs", "", "look for the binaries under this directory instead of /")
	return cmd
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
	if f.json && f.folded {
		return nil, errors.New("--json and --folded both write to stdout (or -o): choose one")
	}
	if err := checkPercentLimit(f.percentLimit); err != nil {
		return nil, err
	}
	var keys []string
	for _, k := range strings.Split(f.sort, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	if err := profile.CheckSort(keys); err != nil {
		return nil, err
	}
	return keys, nil
}

func runReport(e *env, f *reportFlags) error {
	keys, err := f.validate()
	if err != nil {
		return usageErr(err)
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
	lo := loadOptions{cmd: "report", path: f.input, kallsyms: f.kallsyms, symfs: f.symfs, lines: lines,
		keep: f.folded || f.pprof != "" || f.html != ""}
	lo.aggregate = func(hasChains bool) (*profile.Aggregator, error) {
		if !text && !f.json {
			return nil, nil
		}
		o := profile.Options{Sort: keys, Children: hasChains && !f.noChildren, PercentLimit: f.percentLimit,
			CallGraph: hasChains, ShownGraph: !f.json}
		if f.children {
			o.Children = true
		}
		if f.changed("call-graph") {
			o.CallGraph = f.callGraph
		}
		a, err := profile.NewAggregator(o)
		if err != nil {
			return nil, usageErr(err)
		}
		agg = a
		return a, nil
	}
	p, _, err := loadProfile(e, lo)
	if err != nil {
		return err
	}
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
	switch {
	case f.json:
		if err := proffmt.JSON(out.main, p, reports); err != nil {
			return err
		}
	case f.folded:
		if err := proffmt.Folded(out.main, p, proffmt.FoldedOptions{}); err != nil {
			return err
		}
	case text:
		if err := proffmt.Text(out.main, p, reports); err != nil {
			return err
		}
	}
	if out.pprof != nil {
		if err := proffmt.Pprof(out.pprof, p, 0); err != nil {
			return err
		}
	}
	if out.html != nil {
		if err := proffmt.HTML(out.html, p, 0, "pmc report "+filepath.Base(f.input)); err != nil {
			return err
		}
	}
	return nil
}

// loadOptions say which perf.data file to load and where its symbols come from; report,
// annotate and diff share them (flags -i, --kallsyms, --symfs).
type loadOptions struct {
	cmd      string // the command, for its warnings ("pmc report: ...")
	path     string
	kallsyms string
	symfs    string
	lines    bool // read DWARF line tables
	// aggregate, told whether the file has call chains, gives the Aggregator the samples
	// stream into as they are read (nil, or a nil one: none, the profile keeps them);
	// keep keeps them in the profile too.
	aggregate func(hasChains bool) (*profile.Aggregator, error)
	keep      bool
}

// loadProfile reads a perf.data file into a profile, resolving symbols on this machine
// (binaries, kernel) and from the archive beside the file. Problems with symbols go to
// stderr once each; problems with the file are the error.
func loadProfile(e *env, lo loadOptions) (*profile.Profile, bool, error) {
	path, kallsyms, symfs := lo.path, lo.kallsyms, lo.symfs
	pf, err := perfdata.Open(path)
	if err != nil {
		return nil, false, reportFileErr(path, err)
	}
	defer pf.Close()
	hasChains := false
	for _, ev := range pf.Events {
		hasChains = hasChains || ev.Attr.SampleType&perfdata.SampleCallchain != 0
	}
	var agg *profile.Aggregator
	if lo.aggregate != nil {
		if agg, err = lo.aggregate(hasChains); err != nil {
			return nil, false, err
		}
	}
	if symfs == "" {
		symfs = "/"
	}
	res := symbol.NewResolver(os.DirFS(symfs))
	res.NoLines = !lo.lines
	a, err := symbol.OpenArchiveFile(symbol.ArchivePath(path))
	if err != nil {
		warnf(e.stderr, "pmc %s: %v (ignored)", lo.cmd, err)
	}
	res.Archive = a
	// The archive's kernel symbols are the recording machine's: they win over this
	// machine's /proc/kallsyms (not over an explicit --kallsyms).
	var kernelErr error
	if kallsyms != "" || !archiveHasKernel(a) {
		// Read the kernel's symbols beside the records when the file may sample the kernel.
		wait := func() (*symbol.Table, error) { return readKernel(machine(), kallsyms) }
		if samplesKernel(pf) {
			wait = prefetchKernel(kallsyms)
			defer wait() // never outlive the report
		}
		res.LoadKernel = func() (*symbol.Table, error) {
			t, err := wait()
			kernelErr = err
			return t, err
		}
	}
	b := profile.NewBuilder(res)
	if agg != nil {
		b.Stream(agg, lo.keep)
	}
	if err := fromperf.Feed(pf, b); err != nil {
		return nil, false, reportFileErr(path, err)
	}
	p := b.Profile()
	symbolWarnings(e.stderr, lo.cmd, p, kernelErr)
	return p, hasChains, nil
}

func reportFileErr(path string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: no such file: record one with pmc record -- COMMAND (or name it with -i FILE)", path)
	case errors.Is(err, perfdata.ErrUnsupported):
		return fmt.Errorf("%s: %v", path, err)
	}
	var fe *perfdata.FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("%s: not a readable perf.data file (%v): record it again", path, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// prefetchKernel starts reading the kernel's symbols (readKernel) in the background; the
// function it returns waits for them.
func prefetchKernel(kallsyms string) func() (*symbol.Table, error) {
	m := machine()
	done := make(chan struct{})
	var t *symbol.Table
	var err error
	go func() {
		defer close(done)
		t, err = readKernel(m, kallsyms)
	}()
	return func() (*symbol.Table, error) {
		<-done
		return t, err
	}
}

// samplesKernel says whether some event of f may have sampled kernel addresses.
func samplesKernel(f *perfdata.File) bool {
	for _, ev := range f.Events {
		if ev.Attr.Flags&perfdata.FlagExcludeKernel == 0 {
			return true
		}
	}
	return false
}

// loadKernel gives res the kernel's symbols now; the error says why there are none.
func loadKernel(res *symbol.Resolver, kallsyms string) error {
	t, err := readKernel(machine(), kallsyms)
	if err != nil {
		return err
	}
	res.Kernel = t
	return nil
}

// readKernel reads the kernel's symbols from the kallsyms file (m's /proc/kallsyms when "");
// the error says why there are none.
func readKernel(m *host.Machine, kallsyms string) (*symbol.Table, error) {
	if kallsyms != "" {
		data, err := os.ReadFile(kallsyms)
		if err != nil {
			return nil, err
		}
		return symbol.ParseKallsyms(data)
	}
	text, err := m.KallsymsText()
	if err != nil {
		return nil, err
	}
	return symbol.ParseKallsymsText(text)
}

func archiveHasKernel(a *symbol.Archive) bool {
	if a == nil {
		return false
	}
	for _, t := range a.Tables() {
		if t.Kind == symbol.KindKernel {
			return true
		}
	}
	return false
}

// symbolWarnings says once per DSO that got samples why it has no symbols.
func symbolWarnings(w io.Writer, cmd string, p *profile.Profile, kernelErr error) {
	for _, d := range p.Sampled {
		if d.Table != nil || d.Name == profile.Unknown || strings.HasPrefix(d.Name, "[") && !d.Kernel {
			continue
		}
		switch {
		case d.Kernel && kernelErr != nil:
			warnf(w, "pmc %s: no kernel symbols (%v): kernel samples show addresses", cmd, kernelErr)
		case d.Kernel:
			warnf(w, "pmc %s: no symbols for %s: its samples show addresses", cmd, d.Name)
		default:
			warnf(w, "pmc %s: no symbols for %s (%v): its samples show addresses; pmc record --embed-symbols keeps them", cmd, d.Name, d.Err)
		}
	}
}

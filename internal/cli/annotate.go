package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/annotate"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/profile"
)

// annotateFlags are the raw flag values of `pmc annotate`.
type annotateFlags struct {
	load      loadOptions
	stdio     bool
	source    bool
	noSource  bool
	json      bool
	output    string
	event     string
	sourceDir string
	minPct    float64
}

func newAnnotateCmd(e *env) *cobra.Command {
	f := &annotateFlags{load: loadOptions{cmd: "annotate", lines: true}}
	cmd := &cobra.Command{
		Use:   "annotate [-i FILE] [SYMBOL] [options]",
		Short: "show which instructions of a function the samples hit, like perf annotate --stdio",
		Long: `Disassemble a sampled function and give each instruction its share of the function's
samples (perf annotate's "percent: local period"), with the source lines from the DWARF
line table interleaved, the hottest instructions marked with '>' and skid pointed out (a
sample on the instruction after a load or a divide most likely belongs to that one).
Without SYMBOL, the hottest functions in turn. The code is read from the binary the
recording names (under --symfs); a binary rebuilt since the recording is detected by its
build-id. No objdump needed: x86-64, arm64, ARM and Thumb-2 are decoded by pmc itself.
--json writes pmc.annotate/v1 (one document per function, in a JSON array).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sym := ""
			if len(args) == 1 {
				sym = args[0]
			}
			return runAnnotate(e, f, sym)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.load.path, "input", "i", "perf.data", "the perf.data file to read")
	fl.BoolVar(&f.stdio, "stdio", false, "write text (the default)")
	fl.BoolVar(&f.source, "source", false, "interleave source lines (the default when the binary has line information)")
	fl.BoolVar(&f.noSource, "no-source", false, "instructions only")
	fl.BoolVar(&f.json, "json", false, "write JSON (schema pmc.annotate/v1)")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVarP(&f.event, "event", "e", "", "annotate this event's samples (default: the first event with samples)")
	fl.StringVar(&f.sourceDir, "source-dir", "/", "read source files under this directory (full path first, then the base name)")
	fl.Float64Var(&f.minPct, "percent-limit", 0.5, "without SYMBOL: annotate the functions holding at least this percentage")
	fl.StringVar(&f.load.kallsyms, "kallsyms", "", "kernel symbols from this file instead of /proc/kallsyms")
	fl.StringVar(&f.load.symfs, "symfs", "", "look for the binaries under this directory instead of /")
	return cmd
}

// hotSymbol is one function's samples in the chosen event.
type hotSymbol struct {
	sym     *profile.Symbol
	period  uint64
	samples uint64
	periods map[uint64]uint64 // by address in the DSO's space
}

func runAnnotate(e *env, f *annotateFlags, want string) error {
	if f.source && f.noSource {
		return usageErr(errors.New("--source and --no-source: choose one"))
	}
	if f.json && f.stdio {
		return usageErr(errors.New("--json and --stdio: choose one"))
	}
	if err := checkPercentLimit(f.minPct); err != nil {
		return usageErr(err)
	}
	var out io.Writer = e.stdout
	if f.output != "" {
		of, err := outfile.Create(f.output, outfile.Replace)
		if err != nil {
			return err
		}
		ok := false
		defer func() {
			if !ok {
				of.Abort()
			}
		}()
		if err := annotateTo(e, f, want, of); err != nil {
			return err
		}
		ok = true
		return of.Close()
	}
	return annotateTo(e, f, want, out)
}

func annotateTo(e *env, f *annotateFlags, want string, out io.Writer) error {
	p, _, err := loadProfile(e, f.load)
	if err != nil {
		return err
	}
	ev, err := pickEvent(p, f.event)
	if err != nil {
		return usageErr(err)
	}
	hot := hotSymbols(p, ev)
	var chosen []*hotSymbol
	if want != "" {
		for _, h := range hot {
			if h.sym.Name == want || h.sym.Raw == want {
				chosen = append(chosen, h)
			}
		}
		if len(chosen) == 0 {
			return usageErr(symbolNotFound(want, hot))
		}
	} else {
		total := p.Events[ev].Period
		for _, h := range hot {
			if total > 0 && 100*float64(h.period)/float64(total) >= f.minPct {
				chosen = append(chosen, h)
			}
		}
	}
	code := newCodeReader(f.load.symfs)
	defer code.close()
	var results []*annotate.Result
	skipped := map[string]int{} // reason -> functions
	for _, h := range chosen {
		r, err := annotateOne(code, h, p.Events[ev].Name, f.sourceDir)
		if err != nil {
			if want != "" {
				return err
			}
			skipped[err.Error()]++
			continue
		}
		results = append(results, r)
	}
	for _, n := range code.notes {
		warnf(e.stderr, "pmc annotate: %s", n)
	}
	reasons := make([]string, 0, len(skipped))
	for r := range skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		warnf(e.stderr, "pmc annotate: %d sampled function(s) not annotated: %s", skipped[r], r)
	}
	if len(results) == 0 {
		return errors.New("no function could be annotated (see above); name one with pmc annotate SYMBOL")
	}
	if f.json {
		return writeAnnotateJSON(out, results)
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := r.WriteText(out, annotate.TextOptions{NoSource: f.noSource}); err != nil {
			return err
		}
	}
	return nil
}

func writeAnnotateJSON(w io.Writer, results []*annotate.Result) error {
	if len(results) == 1 {
		return results[0].WriteJSON(w)
	}
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i, r := range results {
		if i > 0 {
			io.WriteString(w, ",\n")
		}
		if err := r.WriteJSON(w); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]\n")
	return err
}

// pickEvent is the event named (or the first with samples).
func pickEvent(p *profile.Profile, name string) (int, error) {
	var names []string
	for _, ev := range p.Events {
		if name == "" && ev.Samples > 0 || name != "" && ev.Name == name {
			return ev.Index, nil
		}
		names = append(names, ev.Name)
	}
	if name == "" {
		return 0, errors.New("the file has no samples: record again with a longer workload")
	}
	return 0, fmt.Errorf("no event %q in the file: use one of %s", name, strings.Join(names, ", "))
}

// hotSymbols gathers the samples of event ev per function (the sampled address, Stack[0]),
// hottest first; unresolved addresses are left out.
func hotSymbols(p *profile.Profile, ev int) []*hotSymbol {
	by := map[*profile.Symbol]*hotSymbol{}
	var out []*hotSymbol
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Event != ev || len(s.Stack) == 0 {
			continue
		}
		l := s.Stack[0]
		if l.Sym == nil || l.Sym.Unknown {
			continue
		}
		h := by[l.Sym]
		if h == nil {
			h = &hotSymbol{sym: l.Sym, periods: map[uint64]uint64{}}
			by[l.Sym] = h
			out = append(out, h)
		}
		h.period += s.Period
		h.samples++
		h.periods[l.Rel] += s.Period
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].period != out[j].period {
			return out[i].period > out[j].period
		}
		return out[i].sym.Name < out[j].sym.Name
	})
	return out
}

// symbolNotFound names the sampled functions closest to want (pmc stat's suggestions for
// event names), or the hottest when none is close.
func symbolNotFound(want string, hot []*hotSymbol) error {
	var names []string
	for _, h := range hot {
		names = append(names, h.sym.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("no sampled function %q: the file has no resolved samples", want)
	}
	if s := events.DidYouMean(want, names); s != "" {
		return fmt.Errorf("no sampled function %q%s", want, s)
	}
	return fmt.Errorf("no sampled function %q: the hottest are %s", want, strings.Join(names[:min(5, len(names))], ", "))
}

// annotateOne disassembles h's function and lays its samples out.
func annotateOne(code *codeReader, h *hotSymbol, event, sourceDir string) (*annotate.Result, error) {
	fc, err := code.function(h.sym)
	if err != nil {
		return nil, err
	}
	in := annotate.Input{Symbol: h.sym.Name, Start: h.sym.Start, DSO: profile.DSOName(h.sym.DSO), Event: event,
		Insts: fc.insts, Periods: h.periods, Samples: h.samples}
	if t := h.sym.DSO.Table; t != nil && t.Lines != nil {
		in.Lines = func(a uint64) (string, int, bool) {
			f, l := t.Lines.Lookup(a)
			return f, l, f != ""
		}
		if sourceDir != "" {
			in.Sources = os.DirFS(sourceDir)
		}
	}
	return annotate.Build(in), nil
}

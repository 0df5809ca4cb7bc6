package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/annotate"
	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/outfile"
)

// annotateFlags are the raw flag values of `pmc annotate`.
type annotateFlags struct {
	input     string
	syms      symbolFlags
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
	f := &annotateFlags{}
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
	fl.StringVarP(&f.input, "input", "i", "perf.data", "the perf.data file to read")
	fl.BoolVar(&f.stdio, "stdio", false, "write text (the default)")
	fl.BoolVar(&f.source, "source", false, "interleave source lines (the default when the binary has line information)")
	fl.BoolVar(&f.noSource, "no-source", false, "instructions only")
	fl.BoolVar(&f.json, "json", false, "write JSON (schema pmc.annotate/v1)")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVarP(&f.event, "event", "e", "", "annotate this event's samples (default: the first event with samples)")
	fl.StringVar(&f.sourceDir, "source-dir", "/", "read source files under this directory (full path first, then the base name)")
	fl.Float64Var(&f.minPct, "percent-limit", 0.5, "without SYMBOL: annotate the functions holding at least this percentage")
	f.syms.add(fl)
	return cmd
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
	// Annotate counts each sample where it hit: call chains are not resolved.
	lo := f.syms.options(e, f.input)
	lo.IPOnly = true
	r, err := load(e, "annotate", lo)
	if err != nil {
		return err
	}
	a, err := r.Annotate(driver.AnnotateOptions{Symbol: want, Event: f.event, MinPercent: f.minPct,
		Source: !f.noSource, SourceDir: f.sourceDir})
	if a != nil {
		warn(e, "annotate", a.Notes)
	}
	if err != nil {
		return err
	}
	if f.json {
		return writeAnnotateJSON(out, a.Results)
	}
	for i, r := range a.Results {
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

package cli

import (
	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/driver"
)

func newAnnotateCmd(e *env) *cobra.Command {
	o := driver.AnnotateReport{}
	var input string
	var syms symbolFlags
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
			if len(args) == 1 {
				o.Symbol = args[0]
			}
			o.Load, o.Stdout, o.Warn = syms.options(e, input), e.stdout, warner(e, "annotate")
			return driver.WriteAnnotate(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&input, "input", "i", "perf.data", "the perf.data file to read")
	fl.BoolVar(&o.Stdio, "stdio", false, "write text (the default)")
	fl.BoolVar(&o.SourceGiven, "source", false, "interleave source lines (the default when the binary has line information)")
	fl.BoolVar(&o.NoSource, "no-source", false, "instructions only")
	fl.BoolVar(&o.JSON, "json", false, "write JSON (schema pmc.annotate/v1)")
	fl.StringVarP(&o.Output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVarP(&o.Event, "event", "e", "", "annotate this event's samples (default: the first event with samples)")
	fl.StringVar(&o.SourceDir, "source-dir", "/", "read source files under this directory (full path first, then the base name)")
	fl.Float64Var(&o.MinPercent, "percent-limit", 0.5, "without SYMBOL: annotate the functions holding at least this percentage")
	syms.add(fl)
	return cmd
}

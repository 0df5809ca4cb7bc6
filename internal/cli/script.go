package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/outfile"
	"github.com/pmc-tools/pmc/internal/script"
)

// scriptFlags are the raw flag values of `pmc script`.
type scriptFlags struct {
	input       string
	fields      string
	noCallchain bool
	ns          bool
	output      string
	syms        symbolFlags
}

func newScriptCmd(e *env) *cobra.Command {
	f := &scriptFlags{}
	cmd := &cobra.Command{
		Use:   "script [-i FILE] [-F FIELDS] [options]",
		Short: "print every sample of a perf.data file (perf's or pmc's) as perf script does",
		Long: `Print each sample of a perf.data file written by perf record or pmc record, in time
order, as perf script prints it: command, thread, CPU, time, period, event, then the
address, symbol+offset and shared object, or the call chain below, one frame a line. The
text is perf script's to the byte, so the tools that read it (FlameGraph's
stackcollapse-perf.pl, inferno-collapse-perf, speedscope, Firefox Profiler, Hotspot)
read pmc's too.
-F chooses the fields as perf's -F does: a list replaces the defaults (-F comm,tid,ip,sym),
+field and -field add to and remove from them (-F +pid,-period), a prefix limits the
change to one kind of event (hw:, sw:, trace:, raw:, break:). Fields: ` + strings.Join(script.FieldNames(), ",") + `.
Symbols are found as pmc report finds them (--symfs, --kallsyms, --vmlinux, the archive
FILE.pmcsym beside the file). Inline frames (perf's --inline) and tracepoint fields are
not printed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runScript(e, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.input, "input", "i", "perf.data", "the perf.data file to read")
	fl.StringVarP(&f.fields, "fields", "F", "", "the fields to print (perf's -F syntax): "+strings.Join(script.FieldNames(), ","))
	fl.BoolVarP(&f.noCallchain, "hide-call-graph", "G", false, "print each sample's own address, not its call chain")
	fl.BoolVar(&f.ns, "ns", false, "print times to the nanosecond")
	fl.StringVarP(&f.output, "output", "o", "", "write to this file instead of stdout")
	f.syms.add(fl)
	return cmd
}

func runScript(e *env, f *scriptFlags) error {
	sel, err := script.Parse(f.fields)
	if err != nil {
		return usageErr(err)
	}
	var out io.Writer = e.stdout
	var of *outfile.File
	if f.output != "" {
		if of, err = outfile.Create(f.output, outfile.Replace); err != nil {
			return err
		}
		defer of.Abort()
		out = of
	}
	lo := f.syms.options(e, f.input)
	lo.IPOnly = f.noCallchain
	r, err := load(e, "script", lo)
	if err != nil {
		return err
	}
	o := script.Options{Fields: sel, NoCallchain: f.noCallchain, Nanoseconds: f.ns}
	if err := script.Write(out, r.Profile, r.Events, o); err != nil {
		return err
	}
	if of != nil {
		return of.Close()
	}
	return nil
}

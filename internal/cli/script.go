package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/script"
)

func newScriptCmd(e *env) *cobra.Command {
	var f script.Flags
	var input string
	var syms symbolFlags
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
		RunE: func(cmd *cobra.Command, args []string) error {
			return script.Main(f, e.stdout, func() (*profile.Profile, []perfdata.Event, error) {
				lo := syms.options(e, input)
				lo.IPOnly = f.NoCallchain
				r, err := load(e, "script", lo)
				if err != nil {
					return nil, nil, err
				}
				return r.Profile, r.Events, nil
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&input, "input", "i", "perf.data", "the perf.data file to read")
	fl.StringVarP(&f.Fields, "fields", "F", "", "the fields to print (perf's -F syntax): "+strings.Join(script.FieldNames(), ","))
	fl.BoolVarP(&f.NoCallchain, "hide-call-graph", "G", false, "print each sample's own address, not its call chain")
	fl.BoolVar(&f.Nanoseconds, "ns", false, "print times to the nanosecond")
	fl.StringVarP(&f.Output, "output", "o", "", "write to this file instead of stdout")
	syms.add(fl)
	return cmd
}

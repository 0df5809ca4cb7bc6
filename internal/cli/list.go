package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/listing"
)

// listEntry is one line of `pmc list` and one object of its --json output.
type listEntry = listing.Entry

// listFlags are pmc list's flags, bound straight into the listing's options.
type listFlags = listing.Options

func newListCmd(e *env) *cobra.Command {
	f := &listFlags{}
	cmd := &cobra.Command{
		Use:   "list [PATTERN]",
		Short: "list the events this machine can count, and the catalog's events for its CPU",
		Long: `List software events, generic hardware and cache events (with the raw event each one
means on this CPU), other PMUs' sysfs events, and the event table for the CPU. Events that
cannot be counted here say so. PATTERN is a substring or glob (cache-*, *tlb*), or one of
sw, hw, cache, pmu, tracepoint, table.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := noEmpty(cmd, "cpu", "event-file"); err != nil {
				return err
			}
			pattern := ""
			if len(args) == 1 {
				pattern = args[0]
			}
			f.Piped = !isTerminal(e.stdout)
			return runList(e.stdout, e.machine(), f, pattern)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.Long, "long", false, "print descriptions and caveats")
	fl.BoolVar(&f.JSON, "json", false, "print JSON (schema pmc.list/v1)")
	fl.BoolVar(&f.RawDump, "raw-dump", false, "print only the names of the countable events, on one line, as perf list --raw-dump [hw|sw|cache|pmu|tracepoint|metrics|metricgroups]")
	fl.BoolVar(&f.CHeader, "c-header", false, "print the CPU's event table as a C array for include/pmc.h (PMC_EVENT_TABLE)")
	fl.StringVar(&f.CPU, "cpu", "", "use this CPU's table instead of the detected one (pmc list --cpu help lists them)")
	fl.StringVar(&f.EventFile, "event-file", "", "also read events from a pmu-events or Intel perfmon JSON file or directory")
	return cmd
}

func runList(w io.Writer, on *host.Machine, f *listFlags, pattern string) error {
	return listing.List(w, on, *f, pattern)
}

// noEmpty rejects the named flags when given with an empty value ("--cpu ”" would mean
// "this CPU").
func noEmpty(cmd *cobra.Command, names ...string) error {
	for _, n := range names {
		if f := cmd.Flags().Lookup(n); f != nil && f.Changed && strings.TrimSpace(f.Value.String()) == "" {
			return fmt.Errorf("--%s: give a value (an empty one means nothing)", n)
		}
	}
	return nil
}

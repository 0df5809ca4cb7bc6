package cli

import (
	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/listing"
)

func newExplainCmd(e *env) *cobra.Command {
	var o listing.ExplainOptions
	cmd := &cobra.Command{
		Use:   "explain EVENT",
		Short: "say what an event really counts on this CPU (or on --cpu NAME)",
		Long: `Explain EVENT: a generic perf name (cache-misses, L1-dcache-loads), a table event
(L1D_CACHE_REFILL, ls_dc_accesses), a raw event (r03, 0x03) or a software event. For generic
names it shows the raw event the Linux driver uses on the CPU, what that event counts, and
where the name misleads (two names on one event, speculative counts, different meanings on
other CPUs).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := noEmpty(cmd, "cpu", "event-file"); err != nil {
				return err
			}
			return listing.Explain(e.stdout, e.machine(), o, args[0])
		},
	}
	cmd.Flags().StringVar(&o.CPU, "cpu", "", "explain for this CPU's table instead of the detected one")
	cmd.Flags().StringVar(&o.EventFile, "event-file", "", "also look in a pmu-events or Intel perfmon JSON file or directory")
	return cmd
}

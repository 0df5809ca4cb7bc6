package cli

import (
	"errors"

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/comparerun"
	"github.com/pmc-tools/pmc/internal/host"
)

// readSaved reads saved results (comparerun.ReadSaved). Metrics are computed per run from
// the counts, with the metric flags, as for measured runs (the machine's facts are not
// known: the generic definitions apply).
func readSaved(e *env, f *compareFlags, args []string) (*compare.Comparison, error) {
	s := &f.stat
	if s.changed("timeout") {
		return nil, usageErr(errors.New("--timeout limits the runs of commands: saved results are compared as they are"))
	}
	if s.changed("event") || s.changed("runs") || s.changed("warmup") || s.changed("duration") || s.changed("shell") || len(f.fakes) > 0 {
		return nil, usageErr(errors.New("-e, -r, --warmup, --duration and --shell are for running commands: saved results are compared as they are (-M computes metrics from their counts)"))
	}
	empty := host.Empty()
	facts := empty
	if s.metric.fakeMachine != "" {
		var err error
		if facts, _, err = statMachines(e, s); err != nil {
			return nil, usageErr(err)
		}
	}
	plan, err := newMetricPlan(&s.metric, facts, empty)
	if err != nil {
		return nil, usageErr(err)
	}
	c, err := comparerun.ReadSaved(args, comparerun.SavedOptions{Names: f.names, Region: f.region, Metrics: plan.interval,
		Read: func(path string) ([]byte, error) { return readInput(path, nil, limitResult, "pmc compare") }})
	if err != nil {
		return nil, usageErr(err)
	}
	return c, nil
}

package cli

import (
	"github.com/spf13/pflag"

	"github.com/pmc-tools/pmc/internal/statrun"
)

func registerPerf(fl *pflag.FlagSet, p *statrun.PerfFlags) {
	fl.BoolVarP(&p.JSON, "json-output", "j", false, "perf stat's JSON: one object per line with perf's keys (counter-value, unit, event, event-runtime, pcnt-running, metric-value, metric-unit); pmc's own schema is --json")
	fl.BoolVar(&p.NoMerge, "no-merge", false, "print every counter of an event apart (the metric planner's copies of instructions, for one) instead of merged")
	fl.BoolVar(&p.PerDie, "per-die", false, "with -a/-C: one row per die (its CPUs' counts summed), as perf")
	fl.BoolVar(&p.PerNode, "per-node", false, "with -a/-C: one row per NUMA node (its CPUs' counts summed), as perf")
	fl.BoolVar(&p.Summary, "summary", false, "with -I: also print the whole run's counts after the intervals")
	fl.BoolVar(&p.NoBigNum, "no-big-num", false, "do not group the digits of counts (the default; overrides -B)")
	fl.BoolVar(&p.NoCSVSummary, "no-csv-summary", false, "with --summary and -x: no \"summary\" label in the time column of those rows")
}

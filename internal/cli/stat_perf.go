package cli

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"
)

// perfFlags are perf stat's flags whose output is perf's own: -j (perf's JSON lines),
// --no-merge, --per-die, --per-node, --summary/--no-csv-summary with -I, --no-big-num.
type perfFlags struct {
	json         bool // -j/--json-output: perf stat's JSON, one object per line
	noMerge      bool // --no-merge: the text shows every counter, copies of an event apart
	perDie       bool // --per-die: per-CPU counts summed by die (S0-D0)
	perNode      bool // --per-node: per-CPU counts summed by NUMA node (N0)
	summary      bool // --summary: with -I, the whole run's counts after the intervals
	noCSVSummary bool // --no-csv-summary: those rows without perf's "summary" label (-x)
	noBigNum     bool // --no-big-num: no digit grouping (overrides -B, as perf's negation)
}

func (p *perfFlags) register(fl *pflag.FlagSet) {
	fl.BoolVarP(&p.json, "json-output", "j", false, "perf stat's JSON: one object per line with perf's keys (counter-value, unit, event, event-runtime, pcnt-running, metric-value, metric-unit); pmc's own schema is --json")
	fl.BoolVar(&p.noMerge, "no-merge", false, "print every counter of an event apart (the metric planner's copies of instructions, for one) instead of merged")
	fl.BoolVar(&p.perDie, "per-die", false, "with -a/-C: one row per die (its CPUs' counts summed), as perf")
	fl.BoolVar(&p.perNode, "per-node", false, "with -a/-C: one row per NUMA node (its CPUs' counts summed), as perf")
	fl.BoolVar(&p.summary, "summary", false, "with -I: also print the whole run's counts after the intervals")
	fl.BoolVar(&p.noBigNum, "no-big-num", false, "do not group the digits of counts (the default; overrides -B)")
	fl.BoolVar(&p.noCSVSummary, "no-csv-summary", false, "with --summary and -x: no \"summary\" label in the time column of those rows")
}

// aggregation is the perf --per-X the flags ask for ("socket", "die", "core", "node"), ""
// for none; two of them are an error.
func (f *statFlags) aggregation() (string, error) {
	var by []string
	for _, a := range []struct {
		on   bool
		name string
	}{{f.perSocket, "socket"}, {f.perf.perDie, "die"}, {f.perCore, "core"}, {f.perf.perNode, "node"}} {
		if a.on {
			by = append(by, a.name)
		}
	}
	switch len(by) {
	case 0:
		return "", nil
	case 1:
		return by[0], nil
	}
	return "", errors.New("--per-" + strings.Join(by, " and --per-") + ": choose one")
}

// checkPerf rejects perf-flag combinations pmc cannot honour. --summary without -I and
// --no-csv-summary without --summary change nothing, as in perf.
func (f *statFlags) checkPerf() error {
	switch {
	case f.perf.json && f.json:
		return errors.New("-j is perf's JSON, --json pmc's: choose one")
	case f.perf.json && (f.csv || f.sep != ""):
		return errors.New("-j cannot be combined with CSV output")
	case f.perf.json && f.metric.only:
		return errors.New("-j with --metric-only: use --json --metric-only")
	case f.perf.json && f.sim != "":
		return errors.New("-j has no place for the SIMULATED label: use --json with --sim")
	}
	return nil
}

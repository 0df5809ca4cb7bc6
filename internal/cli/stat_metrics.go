package cli

import (
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/stat"
)

// defaultMetrics computes what perf stat prints in its "#" column without -M (CPUs utilized,
// rates, IPC, branch miss ratio...), for the architecture of this machine's core PMU. Like
// perf, a default metric whose operands were not counted is left out rather than shown empty.
func defaultMetrics(res *stat.Result) []stat.Metric {
	arch := metrics.ArchGeneric
	if core := discover().Core(); core != nil {
		arch = metrics.Arch(core.Name)
	}
	set := metrics.Builtin(arch)
	names, err := set.Select(metrics.GroupDefault)
	if err != nil {
		return nil
	}
	var out []stat.Metric
	for _, m := range set.Compute(res, names, metrics.Options{}) {
		if m.Valid {
			out = append(out, m)
		}
	}
	return out
}

package cli

import (
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/stat"
)

// metricPlan is the metric set and the metric names a `pmc stat` run computes.
type metricPlan struct {
	set   *metrics.Set
	names []string
}

// defaultMetricPlan is what perf stat prints in its "#" column without -M (CPUs utilized,
// rates, IPC, branch miss ratio...), for the architecture of this machine's core PMU.
func defaultMetricPlan() metricPlan {
	arch := metrics.ArchGeneric
	if core := discover().Core(); core != nil {
		arch = metrics.Arch(core.Name)
	}
	set := metrics.Builtin(arch)
	names, err := set.Select(metrics.GroupDefault)
	if err != nil {
		return metricPlan{}
	}
	return metricPlan{set: set, names: names}
}

// valid keeps the metrics that have a value: like perf, a default metric whose operands were
// not counted is left out rather than shown empty.
func valid(ms []stat.Metric) []stat.Metric {
	var out []stat.Metric
	for _, m := range ms {
		if m.Valid {
			out = append(out, m)
		}
	}
	return out
}

// result computes the plan's metrics over a whole Result.
func (p metricPlan) result(res *stat.Result) []stat.Metric {
	if p.set == nil {
		return nil
	}
	return valid(p.set.Compute(res, p.names, metrics.Options{SkipMissing: true}))
}

// interval computes the plan's metrics over one interval's deltas lasting sec seconds.
func (p metricPlan) interval(counts []stat.Count, sec float64) []stat.Metric {
	if p.set == nil {
		return nil
	}
	return valid(p.set.ComputeCounts(counts, sec, p.names, metrics.Options{SkipMissing: true}))
}

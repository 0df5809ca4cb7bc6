package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/exporter"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statrun"
)

// softwareDefault is what the exporter counts by default on a machine without a PMU.
const softwareDefault = "cpu-clock,task-clock,context-switches,cpu-migrations,page-faults"

func newExporterCmd(e *env) *cobra.Command {
	o := &exporter.Options{}
	sf := &statrun.Flags{AllCPUs: true} // the events: -e, -M and --metrics-file as pmc stat -a reads them
	var rules bool
	cmd := &cobra.Command{
		Use:   "exporter [--listen ADDR] [-e EVENTS] [-M METRICS] [--per-cpu] [--cgroup PATTERN]...",
		Short: "count system-wide (and per cgroup) continuously and serve the counts to Prometheus",
		Long: `Count events on every online CPU, and for each cgroup v2 matching --cgroup, for as long as
it runs, and serve them on /metrics for Prometheus: pmc_events_total{event} (scaled for
multiplexing, clocks in nanoseconds) beside pmc_event_enabled_seconds_total and
pmc_event_running_seconds_total, so rates and running shares are computable.
--rules prints Prometheus recording rules that compute -M's metrics from those series.
TLS and basic auth: --web.config.file (the Prometheus exporter-toolkit format), reloaded on
SIGHUP or when it changes; a broken or weaker file keeps the configuration in use. SIGHUP also
looks for cgroups and CPU hotplug at once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			empty := cmd.Flags().Changed("event") && strings.TrimSpace(strings.Join(sf.Events, "")) == ""
			if err := o.Check(empty); err != nil {
				return usageErr(err)
			}
			return runExporter(cmd.Context(), e, o, sf, rules)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.Listen, "listen", []string{"127.0.0.1:9464"}, "address to serve /metrics on (repeatable; :9464 for every interface)")
	fl.StringArrayVarP(&sf.Events, "event", "e", nil, "events to count: comma-separated, repeatable; {a,b} groups (default: pmc stat -a's set this machine supports)")
	fl.StringSliceVarP(&sf.Metric.Metrics, "metrics", "M", nil, "count the events of these metrics or groups in groups (and give --rules for them)")
	fl.StringVar(&sf.Metric.File, "metrics-file", "", "add the metric definitions of this JSON file")
	fl.BoolVar(&o.PerCPU, "per-cpu", false, "one series per CPU (a cpu label) instead of their sum")
	fl.StringArrayVar(&o.Cgroups, "cgroup", nil, "also count each cgroup v2 whose path matches this glob (repeatable), e.g. 'system.slice/*.service'")
	fl.IntVar(&o.CgroupLimit, "cgroup-limit", 100, "count at most this many cgroups; the others are counted in pmc_cgroups_dropped")
	fl.DurationVar(&o.Refresh, "refresh", 5*time.Second, "how often to look for new and removed cgroups and CPU hotplug")
	fl.BoolVar(&rules, "rules", false, "print Prometheus recording rules for the metrics (-M, or every metric the events allow) and exit")
	fl.StringVar(&o.Window, "rules-window", "1m", "the rate() window of the --rules expressions")
	fl.StringVar(&o.WebConfig, "web.config.file", "", "TLS and basic auth configuration (Prometheus exporter-toolkit web config YAML)")
	return cmd
}

// runExporter resolves the events as pmc stat -a does, then prints the rules or serves.
func runExporter(ctx context.Context, e *env, o *exporter.Options, sf *statrun.Flags, rules bool) error {
	on := e.machine()
	plan, err := statrun.NewMetricPlan(&sf.Metric, on, on, e.statEnv().Read)
	if err != nil {
		return usageErr(err)
	}
	spec, err := statrun.ChooseEvents(sf, stat.System, plan)
	if err != nil {
		return usageErr(err)
	}
	if len(sf.Events) == 0 && len(sf.Metric.Metrics) == 0 && on.Core == nil {
		spec = softwareDefault // no PMU: perf's hardware defaults would only say <not supported>
	}
	if o.Events, err = statrun.ResolveOn(on, spec, stat.System, true); err != nil {
		return usageErr(err)
	}
	if rules {
		return exporter.WriteMetricRules(e.stdout, plan.Set, plan.Opt.Match, plan.Names, o.Window, o.Events)
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(e.stderr, "pmc: %s\n", w)
	}
	o.Version, o.Warnf = version(), func(format string, args ...any) { warnf(e.stderr, format, args...) }
	return exporter.Serve(ctx, on, *o, e.stderr)
}

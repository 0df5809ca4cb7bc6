package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/exporter"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/unix"
)

// exporterFlags are the flags of `pmc exporter`.
type exporterFlags struct {
	listen      []string
	events      []string
	metrics     []string
	metricsFile string
	perCPU      bool
	cgroups     []string
	cgroupLimit int
	refresh     time.Duration
	rules       bool
	window      string
	webConfig   string
}

// softwareDefault is what the exporter counts by default on a machine without a PMU.
const softwareDefault = "cpu-clock,task-clock,context-switches,cpu-migrations,page-faults"

func newExporterCmd(e *env) *cobra.Command {
	f := &exporterFlags{}
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
			return runExporter(cmd.Context(), e, f, cmd.Flags().Changed)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.listen, "listen", []string{"127.0.0.1:9464"}, "address to serve /metrics on (repeatable; :9464 for every interface)")
	fl.StringArrayVarP(&f.events, "event", "e", nil, "events to count: comma-separated, repeatable; {a,b} groups (default: pmc stat -a's set this machine supports)")
	fl.StringSliceVarP(&f.metrics, "metrics", "M", nil, "count the events of these metrics or groups in groups (and give --rules for them)")
	fl.StringVar(&f.metricsFile, "metrics-file", "", "add the metric definitions of this JSON file")
	fl.BoolVar(&f.perCPU, "per-cpu", false, "one series per CPU (a cpu label) instead of their sum")
	fl.StringArrayVar(&f.cgroups, "cgroup", nil, "also count each cgroup v2 whose path matches this glob (repeatable), e.g. 'system.slice/*.service'")
	fl.IntVar(&f.cgroupLimit, "cgroup-limit", 100, "count at most this many cgroups; the others are counted in pmc_cgroups_dropped")
	fl.DurationVar(&f.refresh, "refresh", 5*time.Second, "how often to look for new and removed cgroups and CPU hotplug")
	fl.BoolVar(&f.rules, "rules", false, "print Prometheus recording rules for the metrics (-M, or every metric the events allow) and exit")
	fl.StringVar(&f.window, "rules-window", "1m", "the rate() window of the --rules expressions")
	fl.StringVar(&f.webConfig, "web.config.file", "", "TLS and basic auth configuration (Prometheus exporter-toolkit web config YAML)")
	return cmd
}

func runExporter(ctx context.Context, e *env, f *exporterFlags, changed func(string) bool) error {
	if err := f.check(changed); err != nil {
		return usageErr(err)
	}
	on := e.machine()
	sf := &statFlags{events: f.events, metric: metricFlags{metrics: f.metrics, file: f.metricsFile}, allCPUs: true}
	plan, err := newMetricPlan(&sf.metric, on, on)
	if err != nil {
		return usageErr(err)
	}
	spec, err := chooseEvents(sf, stat.System, plan)
	if err != nil {
		return usageErr(err)
	}
	if len(f.events) == 0 && len(f.metrics) == 0 && on.Core == nil {
		spec = softwareDefault // no PMU: perf's hardware defaults would only say <not supported>
	}
	evs, err := resolveOn(on, spec, stat.System, true)
	if err != nil {
		return usageErr(err)
	}
	if f.rules {
		return writeExporterRules(e.stdout, f, plan, evs)
	}
	for _, w := range plan.warnings {
		fmt.Fprintf(e.stderr, "pmc: %s\n", w)
	}
	logf := exporterLog(e.stderr)
	web, err := exporter.NewWeb(f.webConfig, logf)
	if err != nil {
		return usageErr(fmt.Errorf("--web.config.file %s: %v", f.webConfig, err))
	}
	cfg := exporter.Config{Events: evs, PerCPU: f.perCPU, Online: on.OnlineNow,
		Cgroups: f.cgroups, CgroupLimit: f.cgroupLimit}
	if len(f.cgroups) > 0 {
		mount, err := on.Cgroup2Mount()
		if err != nil {
			return usageErr(fmt.Errorf("--cgroup: %w", err))
		}
		cfg.CgroupMount, cfg.CgroupFS = mount, host.CgroupTree(mount)
	}
	// Listen before counting: a port in use fails at once.
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for _, addr := range f.listen {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return usageErr(fmt.Errorf("--listen %s: %v", addr, err))
		}
		listeners = append(listeners, l)
	}
	exp, err := exporter.New(cfg)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	defer exp.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, unix.SIGTERM)
	defer stop()
	go exp.Run(ctx, f.refresh)
	go web.Watch(ctx, f.refresh)
	// SIGHUP reloads, as Prometheus exporters do: the web configuration, and the cgroups and
	// CPUs at once (rather than at the next --refresh). It ended the exporter before.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, unix.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				web.Reload()
				if err := exp.Refresh(); err != nil {
					logf(fmt.Sprintf("SIGHUP: cgroups and CPUs refreshed: %v", err))
				} else {
					logf(fmt.Sprintf("SIGHUP: cgroups and CPUs refreshed (%d cgroups)", len(exp.Cgroups())))
				}
			}
		}
	}()

	sources := []exporter.Source{exp.Families, exporter.BuildInfo(version()), exporter.Process(os.DirFS("/"))}
	if f.webConfig != "" {
		sources = append(sources, web.Families)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", exporter.MetricsHandler(sources...))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "pmc exporter: the counts are on /metrics\n")
	})
	// A slow or stuck client holds only its own connection: counting never waits for it, and
	// these timeouts close it.
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: nil}
	var addrs []string
	for _, l := range listeners {
		addrs = append(addrs, web.Scheme()+"://"+l.Addr().String()+"/metrics")
	}
	fmt.Fprintf(e.stderr, "pmc exporter: serving %s (%d events on %d CPUs, %d cgroups)\n",
		strings.Join(addrs, " "), len(evs), len(on.PMUs.Online), len(exp.Cgroups()))
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		server.Shutdown(sctx)
	}()
	if err := web.Serve(listeners, server); err != nil {
		return &exitError{code: 1, err: err}
	}
	return nil
}

// exporterLog writes the exporter's messages to w, one line each, with pmc exporter's prefix
// (from the reload and signal goroutines: one at a time).
func exporterLog(w io.Writer) func(string) {
	var mu sync.Mutex
	return func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warnf(w, "pmc exporter: %s", msg)
	}
}

func (f *exporterFlags) check(changed func(string) bool) error {
	switch {
	case len(f.listen) == 0 || strings.TrimSpace(strings.Join(f.listen, "")) == "":
		return errors.New("--listen: give an address, e.g. --listen 127.0.0.1:9464")
	case f.cgroupLimit < 1:
		return fmt.Errorf("--cgroup-limit %d: give a positive number", f.cgroupLimit)
	case f.refresh < 100*time.Millisecond:
		return fmt.Errorf("--refresh %v: give at least 100ms, e.g. --refresh 5s", f.refresh)
	case changed("event") && strings.TrimSpace(strings.Join(f.events, "")) == "":
		return errors.New("-e: name at least one event")
	}
	for _, p := range f.cgroups {
		if strings.TrimSpace(p) == "" {
			return errors.New("--cgroup '': give a glob such as 'system.slice/*'")
		}
	}
	if d, err := time.ParseDuration(f.window); err != nil || d <= 0 || strings.ContainsAny(f.window, ".µu") || strings.Contains(f.window, "ns") {
		return fmt.Errorf("--rules-window %q: give a Prometheus duration such as 1m or 30s", f.window)
	}
	return nil
}

// writeExporterRules prints the recording rules of the chosen metrics (or, without -M, of every
// metric whose operands the events count).
func writeExporterRules(w io.Writer, f *exporterFlags, plan *metricPlan, evs []stat.Event) error {
	counted := func(op string) string {
		k, ok := plan.opt.Match.OperandKey(op)
		for _, ev := range evs {
			if ev.Name == op || ok && plan.opt.Match.Key(metrics.EncodingOf(ev.Attr)) == k {
				return ev.Name
			}
		}
		return ""
	}
	names := plan.names
	explicit := len(names) > 0
	if !explicit {
		for _, d := range plan.set.Defs() {
			names = append(names, d.Name)
		}
	}
	var rules []exporter.Rule
	for _, n := range names {
		r, err := exporter.NewRule(plan.set, n, f.window, counted, together(plan.set, n, counted, evs))
		if err != nil {
			if explicit {
				return usageErr(fmt.Errorf("--rules: %w", err))
			}
			continue // a metric the default events cannot compute
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return usageErr(errors.New("--rules: no metric can be computed from these events; choose metrics with -M (pmc stat --list-metrics)"))
	}
	return exporter.WriteRules(w, rules, "")
}

// together reports whether the counter operands of metric name are counted in one group.
func together(set *metrics.Set, name string, counted func(string) string, evs []stat.Event) bool {
	group := -1
	for _, op := range set.Events(name) {
		if !metrics.NeedsCounter(op) {
			continue
		}
		label := counted(op)
		for _, ev := range evs {
			if ev.Name != label {
				continue
			}
			if group >= 0 && ev.Group != group {
				return false
			}
			group = ev.Group
			break
		}
	}
	return true
}

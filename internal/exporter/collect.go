package exporter

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric names of the exposition (docs: README, pmc exporter --help).
const (
	nameCount   = "pmc_events_total"
	nameEnabled = "pmc_event_enabled_seconds_total"
	nameRunning = "pmc_event_running_seconds_total"
)

type descs struct {
	count, enabled, running, supported *prometheus.Desc
	up, cgroups, dropped, cpus, reopen *prometheus.Desc
	refreshOK                          *prometheus.Desc
}

func (e *Exporter) descs() descs {
	l := e.labels
	return descs{
		count: prometheus.NewDesc(nameCount,
			"Events counted, scaled for multiplexing (count * enabled / running) like pmc stat; clocks in nanoseconds.", l, nil),
		enabled: prometheus.NewDesc(nameEnabled,
			"Time the event was enabled (summed over CPUs unless per CPU).", l, nil),
		running: prometheus.NewDesc(nameRunning,
			"Time the event was on a hardware counter; running/enabled is its running share.", l, nil),
		supported: prometheus.NewDesc("pmc_event_supported",
			"1 when the kernel accepted the event, 0 when it refused it (then it has no count).", l, nil),
		up:        prometheus.NewDesc("pmc_up", "1 when the last read of the system-wide counters succeeded.", nil, nil),
		cgroups:   prometheus.NewDesc("pmc_cgroups", "Cgroups counted now.", nil, nil),
		dropped:   prometheus.NewDesc("pmc_cgroups_dropped", "Cgroups matching the patterns that are not counted (over --cgroup-limit, or refused).", nil, nil),
		cpus:      prometheus.NewDesc("pmc_cpus_online", "CPUs counted (the online ones at the last refresh).", nil, nil),
		reopen:    prometheus.NewDesc("pmc_hotplug_reopens_total", "Times the counters were reopened because the online CPUs changed.", nil, nil),
		refreshOK: prometheus.NewDesc("pmc_refresh_ok", "1 when the last refresh (CPUs, cgroups) had no error.", nil, nil),
	}
}

// Describe sends every Desc of the exposition.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	d := e.descs()
	for _, x := range []*prometheus.Desc{d.count, d.enabled, d.running, d.supported, d.up, d.cgroups, d.dropped, d.cpus, d.reopen, d.refreshOK} {
		ch <- x
	}
}

// Collect reads every session and sends its series. It runs while the registry gathers,
// before anything is written to the client.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	d := e.descs()
	e.mu.Lock()
	defer e.mu.Unlock()
	up := 0.0
	if e.system != nil {
		e.read(e.system)
		if e.system.err == nil {
			up = 1
		}
		e.emit(ch, d, e.system, "")
	}
	for name, c := range e.cgroups {
		e.read(c)
		e.emit(ch, d, c, name)
	}
	ok := 1.0
	if e.lastErr != nil {
		ok = 0
	}
	ch <- prometheus.MustNewConstMetric(d.up, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(d.cgroups, prometheus.GaugeValue, float64(len(e.cgroups)))
	ch <- prometheus.MustNewConstMetric(d.dropped, prometheus.GaugeValue, float64(e.dropped))
	ch <- prometheus.MustNewConstMetric(d.cpus, prometheus.GaugeValue, float64(len(e.cpus)))
	ch <- prometheus.MustNewConstMetric(d.reopen, prometheus.CounterValue, float64(e.reopens))
	ch <- prometheus.MustNewConstMetric(d.refreshOK, prometheus.GaugeValue, ok)
}

// emit sends c's series: per CPU, or summed over the CPUs.
func (e *Exporter) emit(ch chan<- prometheus.Metric, d descs, c *counting, cgroup string) {
	type row struct {
		ev, cpu int
	}
	sums := map[row]acc{}
	for k, a := range c.totals() {
		r := row{k.event, -1}
		if e.cfg.PerCPU {
			r.cpu = k.cpu
		}
		sums[r] = sums[r].plus(a)
		if a.err != nil {
			s := sums[r]
			s.err = a.err
			sums[r] = s
		}
	}
	if c.high == nil {
		c.high = map[key]float64{}
	}
	for r, a := range sums {
		labels := []string{e.names[r.ev]}
		if e.cfg.PerCPU {
			labels = append(labels, strconv.Itoa(r.cpu))
		}
		if len(e.cfg.Cgroups) > 0 {
			labels = append(labels, cgroup)
		}
		supported := 1.0
		if a.err != nil && !a.counted {
			supported = 0
		}
		ch <- prometheus.MustNewConstMetric(d.supported, prometheus.GaugeValue, supported, labels...)
		if supported == 0 {
			continue
		}
		ch <- prometheus.MustNewConstMetric(d.enabled, prometheus.CounterValue, a.enabled/1e9, labels...)
		ch <- prometheus.MustNewConstMetric(d.running, prometheus.CounterValue, a.running/1e9, labels...)
		if !a.counted {
			continue // never ran: no count, never a 0
		}
		// A scaled count is an estimate that can step back a little when the running share
		// changes; the series stays monotonic (a decrease would read as a counter reset).
		k := key{r.ev, r.cpu}
		v := max(a.count, c.high[k])
		c.high[k] = v
		ch <- prometheus.MustNewConstMetric(d.count, prometheus.CounterValue, v, labels...)
	}
}

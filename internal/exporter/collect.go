package exporter

import (
	"strconv"
)

// Metric names of the exposition (docs: README, pmc exporter --help).
const (
	nameCount   = "pmc_events_total"
	nameEnabled = "pmc_event_enabled_seconds_total"
	nameRunning = "pmc_event_running_seconds_total"
)

// Families reads every session and returns the exporter's series. It runs before anything is
// written to the client, under the exporter's lock.
func (e *Exporter) Families() []Family {
	count := Family{Name: nameCount, Type: Counter,
		Help: "Events counted, scaled for multiplexing (count * enabled / running) like pmc stat; clocks in nanoseconds."}
	enabled := Family{Name: nameEnabled, Type: Counter,
		Help: "Time the event was enabled (summed over CPUs unless per CPU)."}
	running := Family{Name: nameRunning, Type: Counter,
		Help: "Time the event was on a hardware counter; running/enabled is its running share."}
	supported := Family{Name: "pmc_event_supported", Type: Gauge,
		Help: "1 when the kernel accepted the event, 0 when it refused it (then it has no count)."}
	e.mu.Lock()
	defer e.mu.Unlock()
	up := 0.0
	if e.system != nil {
		e.read(e.system)
		if e.system.err == nil {
			up = 1
		}
		e.emit(&count, &enabled, &running, &supported, e.system, "")
	}
	for name, c := range e.cgroups {
		e.read(c)
		e.emit(&count, &enabled, &running, &supported, c, name)
	}
	ok := 1.0
	if e.lastErr != nil {
		ok = 0
	}
	return []Family{count, enabled, running, supported,
		One("pmc_up", "1 when the last read of the system-wide counters succeeded.", Gauge, up),
		One("pmc_cgroups", "Cgroups counted now.", Gauge, float64(len(e.cgroups))),
		One("pmc_cgroups_dropped", "Cgroups matching the patterns that are not counted (over --cgroup-limit, or refused).", Gauge, float64(e.dropped)),
		One("pmc_cpus_online", "CPUs counted (the online ones at the last refresh).", Gauge, float64(len(e.cpus))),
		One("pmc_hotplug_reopens_total", "Times the counters were reopened because the online CPUs changed.", Counter, float64(e.reopens)),
		One("pmc_refresh_ok", "1 when the last refresh (CPUs, cgroups) had no error.", Gauge, ok),
	}
}

// emit adds c's series to the families: per CPU, or summed over the CPUs.
func (e *Exporter) emit(count, enabled, running, supported *Family, c *counting, cgroup string) {
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
		labels := []Label{{"event", e.names[r.ev]}}
		if e.cfg.PerCPU {
			labels = append(labels, Label{"cpu", strconv.Itoa(r.cpu)})
		}
		if len(e.cfg.Cgroups) > 0 {
			labels = append(labels, Label{"cgroup", cgroup})
		}
		add := func(f *Family, v float64) {
			f.Series = append(f.Series, Series{Labels: labels, Value: v})
		}
		if a.err != nil && !a.counted {
			add(supported, 0)
			continue
		}
		add(supported, 1)
		add(enabled, a.enabled/1e9)
		add(running, a.running/1e9)
		if !a.counted {
			continue // never ran: no count, never a 0
		}
		// A scaled count is an estimate that can step back a little when the running share
		// changes; the series stays monotonic (a decrease would read as a counter reset).
		k := key{r.ev, r.cpu}
		v := max(a.count, c.high[k])
		c.high[k] = v
		add(count, v)
	}
}

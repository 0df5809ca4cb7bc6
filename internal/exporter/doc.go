// Package exporter is pmc exporter's counting and exposition: pmc stat's kernel sessions,
// system-wide on every online CPU, and one per cgroup v2 matching the patterns
// (PERF_FLAG_PID_CGROUP), kept open for days and read at each scrape into Prometheus
// metrics: the scaled counts as monotonic _total series beside the enabled and running
// seconds of each event, so rates and the running share are computable. MetricsHandler
// writes them in Prometheus' text format (version 0.0.4) with pmc_build_info and the
// exporter's own process metrics: pmc's own small writer, not client_golang, whose registry
// and protobuf model cost megabytes of binary and a hundred package inits at every launch of
// pmc.
//
// A refresh loop follows the machine: cgroups that appear are counted (up to a limit, the
// rest counted as dropped), cgroups that go are closed with their series; when the online CPUs
// change the system session is reopened on the new set and the totals carry over, so the
// counters stay monotonic. Reading happens under one lock while the registry gathers, before
// a byte is written to the client, so a slow client holds only its own connection.
//
// Web serves it through the last good web configuration (TLS, basic auth, headers, rate
// limit: exporter-toolkit's file format, parsed and served here rather than by
// exporter-toolkit, which read the file again at every request and so opened up when the file
// was emptied, and which linked client_golang). It fails closed: a reload that fails, or that would lower the protection, keeps
// the configuration in use.
//
// Rules translates pmc's metric expressions into Prometheus recording rules over the rates
// of those series (metrics.Set.PromQL), labelled with whether their operands were counted in
// one group.
//
// Serve is the command around them: the listeners (opened before counting, so a port in use
// fails at once), the HTTP server with its timeouts, the refresh loop, and SIGHUP's reload.
package exporter

// Package statrun is pmc stat's run below its flags: the flags' values (Flags) checked and
// turned into a stat.Request; the machines a run resolves on and takes its facts from
// (Machines); the metrics planned (MetricPlan: -M, --metric-group, --metrics-file, the
// report's default set) and the events chosen and resolved for the machine (ChooseEvents,
// ResolveOn: -e, -d, perf's default list); the backend (the kernel, --fake, --sim's
// cachegrind); -r repeats, -I intervals written as they come, perf's compatibility forms
// (-j, --per-X, --summary); the output file, --report and pmc stat record's perf.data opened
// before counting and written safely after; and the exit status rules (the workload's, 1 for
// a usage error or a failed write, 126/127 for a command that cannot run).
//
// The engine is package stat; the writers are statfmt, statreport and statrecord. The
// caller (internal/cli) defines the flags and passes its streams, machine and file reader
// in an Env; pmc compare and pmc exporter use Machines, NewMetricPlan, ChooseEvents,
// ResolveOn and SimBackend to count what pmc stat would.
package statrun

// Package listing says which events a machine can count and what each one counts: pmc list
// and pmc explain, below their flags.
//
// List gathers software events, perf's generic hardware and cache names with the raw event
// each one is on the CPU (from the machine's catalog table and driver), the PMUs' sysfs
// events, tracepoints and the table's own events (plus an --event-file's), each with its
// status on this machine, filtered by a pattern, and writes them as text (sections with a
// common status), JSON (schema pmc.list/v1), perf list --raw-dump's one line of names (with
// the metrics package's metric and group names), or the table as include/pmc.h's C array.
//
// Explain writes, for one name, what the event counts: the raw event behind a generic name
// on this CPU and on a few others, where the name misleads, how many counters the CPU has,
// and whether it can be counted here. With --cpu the machine is browsed: another CPU's
// table, and nothing of this machine's sysfs.
//
// The package reads the machine through host.Machine (which alone reads /proc and /sys)
// and the catalog; it writes to an io.Writer and does nothing at init.
package listing

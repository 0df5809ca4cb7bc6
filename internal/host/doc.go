// Package host is pmc's model of a machine: the one place that reads /proc and /sys (once)
// and holds what every command needs to know of where it runs: the host name, kernel and
// processors, the CPU's identity, the PMUs and the core PMU, the catalog table for the CPU
// and what the kernel's driver makes of the generic events, the counters (general, cycle,
// fixed) and issue width, and the events the core PMU advertises.
//
// Probe reads a machine through two fs.FS (its root and its /sys, so tests pass snapshots);
// Empty is a machine that knows nothing but the kernel's fixed event types (the fake
// backend's, so its goldens are the same on every host); Load rebuilds a machine from
// recorded facts (a board pmc never ran on) by writing them as a snapshot and probing that,
// so the three share one code path. Browse swaps in another CPU's table for pmc list and
// explain --cpu.
package host

// Package sim is pmc stat's simulated backend (--sim): it runs the workload under valgrind's
// cachegrind and turns the simulator's totals (instructions, L1 I/D accesses and misses,
// last-level misses, branches and mispredicts) into readings of perf's event names, so they
// go through the same metrics and writers. Every result it makes is labelled simulated.
package sim

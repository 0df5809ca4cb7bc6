// Package top is pmc top's engine: a live profile of where a machine (or some processes, or
// a cgroup) spends an event, as perf top shows it. Samples stream in as perf.data records
// (SAMPLE, MMAP2, COMM, FORK, EXIT, LOST) and are attributed to rows by perf's sort keys
// (command, pid, DSO, symbol); each row keeps its period and, with call chains, the chains
// that led to it.
//
// Memory stays bounded however long it runs: every refresh ages each row's period by
// perf top's decay (7/8) and drops the rows that reach zero, a process's maps and threads
// are dropped at its exit, the per-process address cache is cleared when it grows past a
// bound, and a row keeps at most a fixed number of distinct call chains.
//
// The Model is fed and read on one goroutine; the live Source (per-CPU rings) and the
// terminal views are separate, so the model is tested with plain records. Main wires the
// three for pmc top from its flags.
package top

// Package profile is pmc's one model of a sampling profile: samples attributed to a thread
// (pid, tid, comm), a DSO, a symbol and a call chain, with their period and event. The
// perf.data reader feeds a Builder with plain records (Comm, Mmap, Fork, Exit, Sample); the
// Builder keeps each process's memory map, resolves every distinct address once through a
// symbol.Resolver and hands out a Profile. Report aggregates a Profile by sort keys the way
// perf report --sort does (self, children, percent of the total period); the text, JSON,
// pprof, folded and HTML writers (internal/proffmt) read the same Profile and Report.
package profile

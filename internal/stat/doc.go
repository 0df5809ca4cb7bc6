// Package stat runs counting sessions: it opens the resolved events through a Backend (the
// kernel's perf_event interface or the deterministic fake), launches or attaches to the
// workload, reads time_enabled/time_running, scales multiplexed counts, repeats runs and
// computes their statistics. Its Result is the single structure every output is written from.
package stat

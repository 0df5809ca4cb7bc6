// Package result is pmc's model of measured counts: a pmc stat invocation (Stat) with its
// runs, per-event counts, intervals, summaries over repeats and metrics, each count with a
// typed status and, when it has no value, a typed reason. Every writer (text, JSON, CSV, the
// report file, pmc show, pmc compare) reads this model and nothing else. It imports no other
// package of pmc, so any tool can read a pmc.stat/v1 file with it alone (docs/json-schema.md).
package result

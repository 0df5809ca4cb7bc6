// Package profdiff is pmc diff's model: the functions of a baseline profile and of one or
// more new profiles lined up row by row, each with its share of its own profile's total
// period and the change against the baseline computed as perf diff computes it (delta of
// percentages, ratio or weighted difference of periods), sorted the way perf diff sorts.
//
// Rows are matched by a key chosen by Match: perf diff's own "dso,sym" (shared object and
// symbol), "sym" (symbol alone, perf diff --sort symbol), or pmc's default "main": the
// symbols of the main programs (executables, not shared libraries or the kernel) by name
// alone, so ./naive vs ./interchange give one row per function, and everything else by
// shared object and name. An unresolved kernel address is matched only within one kernel
// build-id (the same address of another kernel is another function). With call chains, the
// inclusive (children) shares get a second table. Writers: perf-like text and JSON (schema
// pmc.diff/v1, docs/json-schema.md).
package profdiff

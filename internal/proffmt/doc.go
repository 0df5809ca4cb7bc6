// Package proffmt writes profiles (internal/profile): perf report --stdio-like text, JSON
// (schema pmc.report/v1, docs/json-schema.md), pprof's gzipped profile.proto, folded
// (collapsed) stacks, and a self-contained HTML flame graph.
package proffmt

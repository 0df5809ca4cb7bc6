// Package comparerun runs pmc compare: it measures the commands one run at a time,
// interleaved A B A B ... (or in blocks), with warm-ups, a round count or a duration, a time
// limit per run (--timeout) and Ctrl-C handling (the first stops the comparison, which is
// still written; a second exits at once); or it reads saved results (pmc stat --json,
// pmc compare --json, include/pmc.h's files, their regions compared region by region);
// and it writes the comparison safely to stdout or files, with the HTML page.
//
// It sits beside package compare, which stays the model and its writers: pure functions of
// a Comparison, without the kernel sessions (package stat), signals and files this one
// needs. The caller (internal/cli) chooses the events, metrics and backends and passes them
// in; nothing here parses flags.
package comparerun

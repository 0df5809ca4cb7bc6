// Package compare is the model and the writers of pmc compare: several commands (or saved
// pmc stat results, or include/pmc.h files), each with its runs, side by side. Build turns
// the runs into rows, one per quantity (wall, user and system time, peak RSS, every event
// and metric), each with a cell per command: mean, standard deviation, min … max and Tukey
// outliers, and, for every command after the first, its change against the first: the ratio
// of the means with Fieller's interval (package statistics; docs/statistics.md). The regions
// of include/pmc.h files are compared region by region, never averaged as runs. Differences
// between the inputs (CPU, PMU, kernel, backend, simulated caches, event encodings) are
// stated after normalizing what two writers spell differently. The writers print it as a
// terminal table, JSON (pmc.compare/v1, docs/json-schema.md), RFC 4180 CSV and Markdown;
// package comparehtml draws it. Simulated counts say SIMULATED in every one.
package compare

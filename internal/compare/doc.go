// Package compare is the model and the writers of pmc compare: several commands (or saved
// pmc stat results), each with its runs, side by side. Build turns the runs into rows, one
// per quantity (wall, user and system time, peak RSS, every event and metric), each with a
// cell per command: mean, standard deviation, min … max and Tukey outliers, and, for every
// command after the first, its change against the first with Welch's t confidence interval
// (package statistics). The writers print it as a terminal table, JSON (pmc.compare/v1,
// docs/json-schema.md), RFC 4180 CSV and Markdown; package comparehtml draws it.
package compare

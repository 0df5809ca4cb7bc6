// Package statfmt writes pmc stat's results (a result.Stat) as perf-like text, JSON or CSV,
// and the --metric-only forms of each.
//
// Text follows perf stat's layout column for column (header, one row per event with the
// value right-aligned in 18 columns, the unit, the event name, the "#" metric column, the
// "( +- x% )" variation with -r, the "(66.67%)" running share when a counter was
// multiplexed, "<not counted>" and "<not supported>" rows, the elapsed/user/sys footer,
// "CPU0" prefixes with -A and time-stamped lines with -I), so people and scripts used to
// perf read it without surprise. Where pmc knows more than perf shows, the text says so in
// the metric column: a metric whose operands were not counted prints "undefined", one whose
// operands were not on the PMU together is marked "(not measured together)", and a
// plausibility warning is printed after "!!".
//
// CSV has two forms. With -x SEP it keeps perf's column order (value, unit, event,
// variance, running time, running percent, metric value, metric unit, preceded by the
// interval time and the CPU when present) but quotes fields the RFC 4180 way, so an event
// name containing the separator, a quote or a newline survives a round trip. With --csv the
// separator is ',' and a header row names a fixed set of columns, extended with the raw and
// scaled counts, the enabled and running times, the group, the CPU and the status.
// docs/json-schema.md lists the columns.
//
// JSON is the result.Stat itself, schema "pmc.stat/v1", documented field by field in
// docs/json-schema.md; a test fails when a field is added to the model without a line there.
// PerfJSON is perf stat -j's form instead (one object per counter and line, perf's keys),
// compared byte for byte with perf 6.1's output; CSVSummary the -I --summary rows of -x.
//
// MetricOnlyText, MetricOnlyCSV and MetricOnlyJSON print only the metrics (--metric-only):
// a text table, RFC 4180 records and a JSON document with schema "pmc.stat.metrics/v1".
//
// Numbers in CSV and JSON never depend on the locale ('.' decimal point, no grouping). Text
// groups digits only when asked (TextOptions.Thousands), as perf does only when the locale
// asks for it.
//
// The files these writers fill are opened with package outfile.
package statfmt

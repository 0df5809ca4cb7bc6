// Package statreport writes the report file of `pmc stat --report`, in the spirit of
// rpistat's rpistat.txt.
//
// Write produces the report: a header with the command, date, host, CPU model and PMU,
// number of processors and kernel; the run (exit status, times); every event with its raw
// count, scaled count and running share; the metrics grouped into instructions and cycles,
// caches, TLB, branches, stalls and software events, each with its unit and a column saying
// whether its operands were measured together; and a numbered list of notes: an
// interrupted workload, events that could not be counted, the co-scheduling planner's
// warnings and every metric's warning (not measured together, implausible, extrapolated
// from a short running time, undefined). The machine facts come in as a Machine so a
// report is a pure function of its inputs.
//
// Numbers: counts are grouped by thousands with ',' and metrics have three decimals, in
// every locale, so reports compare with diff.
package statreport

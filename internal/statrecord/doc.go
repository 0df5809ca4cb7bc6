// Package statrecord reads and writes the perf.data of perf stat record: counts, not
// samples. Write lays one run of a pmc stat result out as perf 6.1 does (the counted events'
// attributes and names, EVENT_UPDATE records with their units and scales, the THREAD_MAP
// and CPU_MAP, the STAT_CONFIG, one STAT record per counter with its value, enabled and
// running times, a final STAT_ROUND with the elapsed time, and the HEADER_STAT flag), to a
// file or in perf's pipe format, so that perf stat report reads it. Read takes such a file,
// perf's or pmc's, back into a result.Stat that pmc's stat writers print as perf stat
// report does: the counters summed as the recording's aggregation says (all together, per
// CPU or per thread), scaled when the recording scaled, an event with no counter
// <not supported>, one that never ran <not counted>.
//
// What is not read yet is refused in one line: interval recordings (perf stat record -I)
// and the per-socket, per-die, per-core and per-node aggregations.
package statrecord

// Package script writes perf script's text: one line per sample (command, pid/tid, CPU,
// time, period, event, and where it hit: address, symbol+offset, DSO), or the sample's
// call chain below it, one frame a line, as perf script 6.1 prints them. It is the
// interchange format flame-graph tools (stackcollapse-perf, inferno, speedscope, Firefox
// Profiler, Hotspot) read, so its bytes follow perf's exactly.
//
// Which fields a sample prints follows perf script: each kind of event (hardware,
// software, tracepoint, raw...) has its default fields, a default field the event did not
// record is dropped (a recording without PERF_SAMPLE_CPU prints no CPU), and -F replaces,
// adds to (+field) or removes from (-field) them, for every kind or one ("sw:comm,ip"); a
// field asked for by name that the event did not record is an error, as in perf.
//
// The samples come from a profile built by internal/driver (Profile.Samples, in perf's
// order); the fields each sample recorded from its event's perf_event_attr.
//
// Main is pmc script around Write: -F is checked and -o opened before the file is read.
package script

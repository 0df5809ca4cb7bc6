// Package record is pmc record's sampling engine: it opens one sampling counter per event,
// CPU and task (the workload, each thread of -p, or every task of -a), maps one ring buffer
// per CPU and sends the CPU's other counters to it, waits on the rings with epoll, and
// writes what they hold to a perf.data file that perf reads (perfdata.Writer), or in perf's
// pipe format to a stream (Request.Pipe, perf record -o -): the tasks that existed before
// (COMM, MMAP2 from /proc), the kernel's map, the records, and at the end the features,
// with the build-ids of the files that samples hit and of the kernel when they hit it, as
// perf lists them (each sample's IP through the maps the records describe, in time order).
// With Request.Compression (perf's -z) the writer compresses the records into perf's
// COMPRESSED records with package zstd's encoder, a stage of the writer that the engine
// only switches on.
//
// It follows the counting side (package stat): the kernel is reached through one seam,
// Kernel.Open (an Opener, perf_event_open(2) by default), so the engine's own logic (the
// fallbacks, the rings, a dying target, lost records, throttling, a full disk) is tested
// on a scripted kernel; every counter belongs to the Session as soon as it is opened and
// Close releases it whatever failed. Ring records are decoded by perfdata.RawDecoder,
// build-ids by package symbol; the machine (threads, maps, limits) is read through host.
//
// What it does where perf would fail or say nothing:
//   - a fixed period (-c) is the attribute's, not each sample's, as perf sets it: with
//     PERF_SAMPLE_PERIOD the kernel samples every software event (page-faults) whatever
//     the period;
//   - a kernel refusing kernel-mode sampling (perf_event_paranoid 2) gets the event in user
//     space only; a default event without a PMU becomes cpu-clock; -F above
//     kernel.perf_event_max_sample_rate is lowered to it. Each is said (Session.Notes);
//   - a write error (a full disk) stops the file where its last complete round ends, which
//     perf and pmc read, while the workload runs on and the rings are still drained; the
//     Result says what was not written;
//   - the end (the workload's exit, every -p target's, Ctrl-C) wakes the poller for good
//     (perfevent.Poller's wake-up is a state), so the recording is always finalized.
//
// The command itself is here too: Options.Plan checks pmc record's flags (rates, targets
// -p/-a/-C, -o, -z), Plan.Request resolves the events on the machine (cpu-clock to fall back
// to for the default event) and the command's path, and Main opens the outputs before
// anything runs (OpenOutput: a file kept or removed as a whole by outfile.Rotate, or
// standard output for -o -), records until the end, writes the summary and the exit status
// and, with --embed-symbols, the symbol archive (through Symbols, the report side's
// functions the engine does not import). The Session alone leaves its output to the caller.
package record

// Package fromperf turns a perf.data file (internal/perfdata) into a profile
// (internal/profile): it names the file's events, replays its side-band records (COMM,
// MMAP/MMAP2 with the build-id feature's ids, FORK, EXIT, LOST) and samples into a
// profile.Builder in the order perf report processes them (time order within the flush
// windows FINISHED_ROUND marks), and supplies what perf's session supplies on its own: the
// "swapper" name of pid 0 and each event's fixed period when samples do not carry it.
// It is the only place that knows both formats.
package fromperf

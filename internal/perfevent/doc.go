// Package perfevent is pmc's kernel boundary and the only importer of golang.org/x/sys/unix.
// It mirrors struct perf_event_attr (include/uapi/linux/perf_event.h) as the pure-Go Attr,
// encodes it, opens counters with perf_event_open(2), reads value/time_enabled/time_running,
// issues the PERF_EVENT_IOC_* ioctls, and holds the few process syscalls (pidfd, exec) that
// launching a workload needs. Every fd has one owner that closes it.
package perfevent

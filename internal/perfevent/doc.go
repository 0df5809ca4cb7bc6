// Package perfevent gives perf_event_open(2) its meaning: it mirrors struct perf_event_attr
// (include/uapi/linux/perf_event.h) as the pure-Go Attr with the kernel's constants, encodes
// it, opens counters, decodes read(2)'s value/time_enabled/time_running layouts (single and
// PERF_FORMAT_GROUP), issues the PERF_EVENT_IOC_* ioctls and classifies the kernel's refusals
// into sentinel errors with a hint naming the fix. The system calls themselves go through
// internal/unix. Every Counter owns its fd and Close releases it.
package perfevent

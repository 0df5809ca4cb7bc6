// Package pmu discovers the kernel's performance monitoring units from sysfs.
//
// Every PMU the kernel registers appears under /sys/bus/event_source/devices/<name>/ with its
// perf_event_attr.type number (type), the layout of its config words (format/*, each a line
// such as "config:0-7,32-35"), named events (events/*, each a term list such as
// "event=0x3c,umask=0x00", optionally with .scale and .unit companions), capabilities (caps/*)
// and the CPUs it counts on (cpus or cpumask). Discover reads all of it from an fs.FS rooted
// like /sys, so tests run on snapshots (testdata/sysfs/<machine>/) and never on a hard-coded
// path. Format.Apply scatters a field value into the config word bits the format names, which
// is how "cpu/event=0x3c,umask=0x1/" becomes a perfevent.Attr. TracepointID reads tracepoint
// ids from tracefs, and ParseCPUList parses the kernel's CPU list syntax ("0-3,5").
package pmu

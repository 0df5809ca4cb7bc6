// Package events parses perf's event syntax and resolves it into perf_event_attr values.
//
// Parse turns an event list such as
//
//	cycles:u,{instructions,L1-dcache-load-misses}:k,cpu/event=0x3c,umask=0x1,name=c/,sched:sched_switch
//
// into GroupSpecs (syntax only, with byte positions for errors). Resolve turns those into
// Groups of Events, each holding the perfevent.Attr that `perf stat` 6.1 would pass to
// perf_event_open for the same string: the same type and config words, the same modifier
// semantics (including perf's quirks, such as ":u" adding exclude_guest while ":k" clears it),
// and the same read_format, sample_type, disabled, inherit and enable_on_exec choices for
// leaders and members. Names resolve, in order, as software and generic hardware events,
// hardware cache events with all of perf's aliases, raw rNNNN events, sysfs events of any PMU,
// and table events from an optional Tables hook (the event catalog). Unknown names fail with
// the closest known names; unknown PMUs and format fields fail listing what exists.
//
// The testdata holds golden Attr texts (go test -update rewrites them) and the real output of
// `perf stat -vv` for every string perf can encode on the recording machine, which the tests
// compare field by field.
package events

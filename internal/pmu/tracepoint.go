package pmu

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// ErrNoTracepoint reports a tracepoint that tracefs does not list.
var ErrNoTracepoint = errors.New("tracepoint not found")

// TracefsDirs are the places tracefs is mounted, relative to the root of a sysfs FS, in the
// order they are tried.
var TracefsDirs = []string{"kernel/tracing", "kernel/debug/tracing"}

// TracepointID returns the id of tracepoint subsys:name (perf_event_attr.config for
// PERF_TYPE_TRACEPOINT) from events/<subsys>/<name>/id under tracefs in fsys (rooted like /sys).
func TracepointID(fsys fs.FS, subsys, name string) (uint64, error) {
	if !validTPName(subsys) || !validTPName(name) {
		return 0, fmt.Errorf("%w: bad tracepoint name %q", ErrNoTracepoint, subsys+":"+name)
	}
	var firstErr error
	for _, dir := range TracefsDirs {
		b, err := fs.ReadFile(fsys, path.Join(dir, "events", subsys, name, "id"))
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("tracepoint %s:%s: bad id %q", subsys, name, strings.TrimSpace(string(b)))
		}
		return id, nil
	}
	return 0, fmt.Errorf("%w: %s:%s (%w)", ErrNoTracepoint, subsys, name, firstErr)
}

// TracepointNames lists the tracepoints of subsys (or the subsystems when subsys is ""), from
// the first tracefs directory that has them. It is meant for "did you mean" hints.
func TracepointNames(fsys fs.FS, subsys string) []string {
	if subsys != "" && !validTPName(subsys) {
		return nil
	}
	for _, dir := range TracefsDirs {
		entries, err := fs.ReadDir(fsys, path.Join(dir, "events", subsys))
		if err != nil {
			continue
		}
		var names []string
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		return names
	}
	return nil
}

func validTPName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

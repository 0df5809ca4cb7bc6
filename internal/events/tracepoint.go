package events

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// maxGlobEvents bounds how many tracepoints one glob may expand to.
const maxGlobEvents = 4096

// notTracepoint reports whether name is an event of its own (symbolic, cache or raw), so
// that "name:x" is that event with bad modifiers rather than a tracepoint of subsystem name.
func notTracepoint(name string) bool {
	_, sym := lookupSymbol(name)
	_, cache, _ := parseCache(name)
	return sym || cache || isRaw(name)
}

func badModifier(mods, event string) string {
	return fmt.Sprintf("bad modifier %s after event %s (modifiers: %s)", Short(mods), Short(event), modifierChars)
}

// tracepoint resolves subsys:name to PERF_TYPE_TRACEPOINT with the id from tracefs. Either part
// may be a glob (sched:sched_wak*), which expands to every matching tracepoint in id order
// (the order tracefs lists them, and so perf's, on the kernels checked).
func (r *resolver) tracepoint(spec EventSpec) ([]resolved, error) {
	full := spec.Name + ":" + spec.Event
	if notTracepoint(spec.Name) {
		return nil, r.errAt(spec, errf(ErrSyntax, "%s", badModifier(spec.Event, spec.Name)))
	}
	if spec.Name == "mem" {
		return nil, r.errAt(spec, errf(ErrUnsupported, "breakpoint event %q: pmc does not support mem:ADDR events", full))
	}
	if r.tp == nil {
		return nil, r.errAt(spec, errf(ErrUnknownEvent, "tracepoint %q: no tracefs to look it up in", full))
	}
	if strings.ContainsAny(full, "*?") {
		return r.tracepointGlob(spec)
	}
	id, err := pmu.TracepointID(r.tp, spec.Name, spec.Event)
	if errors.Is(err, fs.ErrPermission) {
		return nil, r.errAt(spec, errf(ErrPermission, "tracepoint %s: permission denied reading tracefs (/sys/kernel/tracing): "+
			"run as root, or let others read it: `mount -o remount,mode=755 /sys/kernel/tracing`", Short(full)))
	}
	if err != nil && len(pmu.TracepointNames(r.tp, "")) == 0 {
		return nil, r.errAt(spec, errf(ErrUnknownEvent, "tracepoint %s: tracefs is not mounted: `mount -t tracefs nodev /sys/kernel/tracing`", Short(full)))
	}
	if err != nil {
		known := pmu.TracepointNames(r.tp, spec.Name)
		for i, n := range known {
			known[i] = spec.Name + ":" + n
		}
		if len(known) == 0 { // unknown subsystem: suggest the ones that have this tracepoint
			for _, s := range pmu.TracepointNames(r.tp, "") {
				if _, err := pmu.TracepointID(r.tp, s, spec.Event); err == nil {
					known = append(known, s+":"+spec.Event)
				}
			}
		}
		return nil, r.errAt(spec, errf(ErrUnknownEvent, "tracepoint %s not found in tracefs", Short(full)).hint(didYouMean(full, known)))
	}
	return []resolved{tracepointEvent(spec.Name, spec.Event, id, false, "")}, nil
}

// tracepointEvent builds a tracepoint event; glob expansions are named after the tracepoint
// they matched (with the modifiers), others keep the name as written.
func tracepointEvent(subsys, name string, id uint64, glob bool, mods string) resolved {
	e := resolved{Event: Event{PMU: "tracepoint", Attr: pe.Attr{Type: pe.TypeTracepoint, Config: id},
		Resolved: subsys + ":" + name}}
	if glob {
		e.Name = e.Resolved
		if mods != "" {
			e.Name += ":" + mods
		}
	}
	return e
}

func (r *resolver) tracepointGlob(spec EventSpec) ([]resolved, error) {
	full := spec.Name + ":" + spec.Event
	if _, err := path.Match(full, ""); err != nil {
		return nil, r.errAt(spec, errf(ErrSyntax, "bad tracepoint pattern %s", Short(full)))
	}
	var evs []resolved
	for _, s := range pmu.TracepointNames(r.tp, "") {
		if ok, _ := path.Match(spec.Name, s); !ok {
			continue
		}
		for _, n := range pmu.TracepointNames(r.tp, s) {
			if ok, _ := path.Match(spec.Event, n); !ok {
				continue
			}
			id, err := pmu.TracepointID(r.tp, s, n)
			if err != nil {
				continue // a directory without an id (tracefs' "enable" files live beside them)
			}
			if len(evs) == maxGlobEvents {
				return nil, r.errAt(spec, errf(ErrValue, "tracepoint pattern %q matches more than %d tracepoints", full, maxGlobEvents))
			}
			evs = append(evs, tracepointEvent(s, n, id, true, spec.Modifiers))
		}
	}
	if len(evs) == 0 {
		return nil, r.errAt(spec, errf(ErrUnknownEvent, "no tracepoint matches %s", Short(full)))
	}
	slices.SortStableFunc(evs, func(a, b resolved) int { return cmp.Compare(a.Attr.Config, b.Attr.Config) })
	return evs, nil
}

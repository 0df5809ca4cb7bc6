package events

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// Tables looks up events by name in an event catalog (JSON event tables). Lookup must ignore
// case; pmu is the sysfs PMU the event belongs to ("" or an absent PMU means the core PMU).
type Tables interface {
	Lookup(name string) (pmu string, config uint64, ok bool)
	Names() []string
}

// Options are the perf stat settings that change the attr.
type Options struct {
	// NoInherit clears inherit (perf stat --no-inherit); by default counters follow children.
	NoInherit bool
	// EnableOnExec sets enable_on_exec on group leaders: true when pmc launches the workload
	// itself and counts from its exec (perf stat CMD); false for -p PID, -a and --delay.
	EnableOnExec bool
	// AllUser and AllKernel are perf stat --all-user and --all-kernel: they override the
	// user/kernel exclusion of every event after its modifiers.
	AllUser, AllKernel bool
	// Tables resolves catalog event names; nil for none.
	Tables Tables
}

// Event is one resolved counter.
type Event struct {
	Name     string  // as written, modifiers included (or the name= term)
	PMU      string  // the PMU that counts it: software, tracepoint, cpu, msr, armv8_pmuv3_0...
	Attr     pe.Attr // what perf stat would pass to perf_event_open
	Unit     string  // display unit (msec for clocks, sysfs .unit)
	Scale    float64 // multiply counts by this (1e-6 for clocks' ns to msec, sysfs .scale)
	Resolved string  // canonical form of what the name resolved to, without modifiers
}

// Group is a set of events opened together; a lone event is a group of one.
type Group struct {
	Events []Event
	// Weak: perf's {...}:W. When the kernel refuses the group as a whole (it needs more
	// counters than the PMU has), its events are opened on their own instead.
	Weak bool
}

// resolved carries an event through group assembly.
type resolved struct {
	Event
	excludeGH bool
}

// Resolve turns parsed event lists into attrs, using sys for PMU names, formats and sysfs
// events, and tp (an FS rooted like /sys) for tracepoint ids. sys and tp may be nil when the
// list needs neither.
func Resolve(groups []GroupSpec, sys *pmu.System, tp fs.FS, opts Options) ([]Group, error) {
	r := &resolver{sys: sys, tp: tp, opts: opts}
	if r.sys == nil {
		r.sys = &pmu.System{PMUs: map[string]*pmu.PMU{}}
	}
	var out []Group
	for _, g := range groups {
		var members []resolved
		var lone [][]resolved
		for _, spec := range g.Events {
			evs, err := r.event(spec)
			if err != nil {
				return nil, err
			}
			if g.Braced {
				members = append(members, evs...)
			} else {
				for _, e := range evs {
					lone = append(lone, []resolved{e})
				}
			}
		}
		if g.Braced {
			lone = [][]resolved{members}
		}
		for _, m := range lone {
			grp, err := r.finish(m, g)
			if err != nil {
				return nil, err
			}
			out = append(out, grp)
		}
	}
	return out, nil
}

type resolver struct {
	sys  *pmu.System
	tp   fs.FS
	opts Options
}

// finish applies group modifiers and perf stat's counter settings (create_perf_stat_counter).
func (r *resolver) finish(members []resolved, g GroupSpec) (Group, error) {
	var grp Group
	for i, m := range members {
		a := &m.Attr
		leader := i == 0
		if g.Modifiers != "" {
			st := stateOf(a, m.excludeGH).apply(g.Modifiers)
			if st.precise > 3 {
				return Group{}, errf(ErrValue, "event %q with group modifier %q asks for precise level %d (max 3)",
					m.Name, g.Modifiers, st.precise)
			}
			st.store(a, leader)
		}
		a.ReadFormat = pe.FormatTotalTimeEnabled | pe.FormatTotalTimeRunning
		if len(members) > 1 {
			a.ReadFormat |= pe.FormatID | pe.FormatGroup
		}
		a.SampleType = pe.SampleIdentifier
		a.SamplePeriod = 0
		a.Inherit = !r.opts.NoInherit
		if r.opts.AllUser {
			a.ExcludeKernel, a.ExcludeUser = true, false
		}
		if r.opts.AllKernel {
			a.ExcludeKernel, a.ExcludeUser = false, true
		}
		if leader {
			a.Disabled = true
			a.EnableOnExec = r.opts.EnableOnExec
		}
		grp.Events = append(grp.Events, m.Event)
	}
	grp.Weak = strings.Contains(g.Modifiers, "W")
	return grp, nil
}

// event resolves one spec; a bare sysfs event name may resolve on several PMUs.
func (r *resolver) event(spec EventSpec) ([]resolved, error) {
	var evs []resolved
	var err error
	switch spec.Kind {
	case KindPMU:
		var e resolved
		e, err = r.pmuEvent(spec)
		evs = []resolved{e}
	case KindTracepoint:
		evs, err = r.tracepoint(spec)
	case KindNumeric:
		e := resolved{Event: Event{Attr: pe.Attr{Type: spec.Type, Config: spec.Config},
			Resolved: fmt.Sprintf("%d:%#x", spec.Type, spec.Config)}}
		e.PMU = r.pmuName(spec.Type)
		evs = []resolved{e}
	default:
		evs, err = r.named(spec)
	}
	if err != nil {
		return nil, err
	}
	for i := range evs {
		e := &evs[i]
		if e.Name == "" {
			e.Name = spec.Text
		}
		if e.Scale == 0 {
			e.Scale = 1
		}
		if spec.Modifiers == "" {
			e.Attr.ExcludeGuest = true // perf's event_attr_init default (perf_guest is false)
			continue
		}
		st := modState{}.apply(spec.Modifiers)
		st.store(&e.Attr, true)
		e.excludeGH = st.excludeGH
	}
	return evs, nil
}

// isRaw reports whether name is a raw event, r and hex digits ("r1a8"). String code, not a
// regular expression: nothing compiled at package init, which every launch of pmc pays.
func isRaw(name string) bool {
	hex, ok := strings.CutPrefix(name, "r")
	return ok && hex != "" && strings.Trim(hex, "0123456789abcdefABCDEF") == ""
}

// named resolves a bare name: symbol, cache, raw, sysfs event, then table event.
func (r *resolver) named(spec EventSpec) ([]resolved, error) {
	name := spec.Name
	if s, ok := lookupSymbol(name); ok {
		e := resolved{Event: Event{Attr: pe.Attr{Type: s.Type, Config: s.Config}, Resolved: s.label()}}
		e.PMU = r.pmuName(s.Type)
		if s.Type == pe.TypeSoftware && (s.Config == pe.SWTaskClock || s.Config == pe.SWCPUClock) {
			e.Unit, e.Scale = "msec", 1e-6
		}
		return []resolved{e}, nil
	}
	if c, ok, badOp := parseCache(name); ok {
		if badOp {
			return nil, r.errAt(spec, errf(ErrUnsupported, "cache event %s: %s does not support %s",
				Short(name), cacheTypes[c.typ][0], opWord(name, c)))
		}
		e := resolved{Event: Event{Attr: pe.Attr{Type: pe.TypeHWCache, Config: c.config()}, Resolved: c.name()}}
		e.PMU = r.pmuName(pe.TypeHWCache)
		return []resolved{e}, nil
	}
	if isRaw(name) {
		cfg, ok := parseNumber("0x" + name[1:])
		if !ok {
			return nil, r.errAt(spec, errf(ErrValue, "raw event %s does not fit in 64 bits", Short(name)))
		}
		e := resolved{Event: Event{Attr: pe.Attr{Type: pe.TypeRaw, Config: cfg}, Resolved: fmt.Sprintf("r%x", cfg)}}
		e.PMU = r.pmuName(pe.TypeRaw)
		return []resolved{e}, nil
	}
	if s, ok := LookupSymbol(name); ok && s.Class == Tool {
		return nil, r.errAt(spec, errf(ErrUnsupported, "%s is a perf tool event, not a counter: pmc reports elapsed, user and system time itself", name))
	}
	if evs, err := r.sysfsAlias(spec); evs != nil || err != nil {
		return evs, err
	}
	if e, ok := r.table(name); ok {
		return []resolved{e}, nil
	}
	return nil, r.errAt(spec, errf(ErrUnknownEvent, "unknown event %s", Short(name)).hint(didYouMean(name, r.knownNames())))
}

// opWord recovers the op word the user wrote, for the error message.
func opWord(name string, c cacheEvent) string {
	for op := range cacheOps {
		if !cacheOpValid[c.typ][op] {
			for _, w := range cacheOps[op] {
				if strings.Contains(strings.ToLower(name), "-"+strings.ToLower(w)) {
					return cacheOps[op][1]
				}
			}
		}
	}
	return "that operation"
}

// sysfsAlias finds name among the sysfs events of every PMU (the core PMU first), as perf
// does for a bare name that is not a symbol. Exact case is preferred over a case-insensitive
// match.
func (r *resolver) sysfsAlias(spec EventSpec) ([]resolved, error) {
	names := r.sys.Names()
	if c := r.sys.Core(); c != nil {
		names = slices.DeleteFunc(names, func(n string) bool { return n == c.Name })
		names = append([]string{c.Name}, names...)
	}
	for _, fold := range []bool{false, true} {
		var evs []resolved
		for _, pn := range names {
			p := r.sys.PMUs[pn]
			alias, ok := p.Events[spec.Name]
			if !ok && fold {
				for n, a := range p.Events {
					if strings.EqualFold(n, spec.Name) {
						alias, ok = a, true
						break
					}
				}
			}
			if !ok {
				continue
			}
			e, err := r.pmuTerms(spec, p, []Term{{Key: alias.Name, Pos: spec.Pos}})
			if err != nil {
				return nil, err
			}
			evs = append(evs, e)
		}
		if len(evs) > 0 {
			return evs, nil
		}
	}
	return nil, nil
}

// table resolves a catalog event name.
func (r *resolver) table(name string) (resolved, bool) {
	if r.opts.Tables == nil {
		return resolved{}, false
	}
	pmuName, cfg, ok := r.opts.Tables.Lookup(name)
	if !ok && strings.ToLower(name) != name { // in case a catalog matches case exactly
		pmuName, cfg, ok = r.opts.Tables.Lookup(strings.ToLower(name))
	}
	if !ok {
		return resolved{}, false
	}
	typ := pe.TypeRaw
	if p, found := r.sys.PMUs[pmuName]; found {
		typ = p.Type
	} else if c := r.sys.Core(); c != nil {
		typ, pmuName = c.Type, c.Name
	} else if pmuName == "" {
		pmuName = "cpu"
	}
	return resolved{Event: Event{PMU: pmuName, Attr: pe.Attr{Type: typ, Config: cfg},
		Resolved: fmt.Sprintf("%s/config=%#x/", pmuName, cfg)}}, true
}

// pmuName names the PMU that counts events of type t: the sysfs PMU with that type, or for
// the generic hardware types the core PMU ("cpu" when the machine has none).
func (r *resolver) pmuName(t uint32) string {
	switch t {
	case pe.TypeHardware, pe.TypeHWCache, pe.TypeRaw:
		if c := r.sys.Core(); c != nil {
			return c.Name
		}
		return "cpu"
	case pe.TypeSoftware:
		return "software"
	case pe.TypeTracepoint:
		return "tracepoint"
	}
	if p := r.sys.ByType(t); p != nil {
		return p.Name
	}
	return fmt.Sprintf("type%d", t)
}

// errAt records the event's column in err when it is an *Error.
func (r *resolver) errAt(spec EventSpec, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Col == 0 {
		e.Col = spec.Pos + 1
	}
	return err
}

package events

import (
	"fmt"
	"strings"
)

// Kind says how an event was written.
type Kind int

const (
	// KindName is a bare name: software, hardware, cache, raw rNNNN, sysfs or table event.
	KindName Kind = iota
	// KindPMU is pmu/term,term=value,.../.
	KindPMU
	// KindTracepoint is subsys:name.
	KindTracepoint
	// KindNumeric is type:config, both numbers.
	KindNumeric
)

// GroupSpec is one item of an event list: a single event, or a {braced} group with optional
// group modifiers.
type GroupSpec struct {
	Events    []EventSpec
	Braced    bool
	Modifiers string // after "}:"; "" when none
	Pos       int    // byte offset of the item in the input
}

// EventSpec is one event as written.
type EventSpec struct {
	Kind      Kind
	Name      string // KindName: the name; KindPMU: the PMU; KindTracepoint: the subsystem
	Event     string // KindTracepoint: the tracepoint's name
	Terms     []Term // KindPMU
	Type      uint32 // KindNumeric
	Config    uint64 // KindNumeric
	Modifiers string // event modifiers ("u", "ppp"); "" when none
	Text      string // the event exactly as written, modifiers included
	Pos       int    // byte offset in the input
}

// Term is one pmu/.../ term: key=value, or a bare key (a flag set to 1, or a sysfs event).
type Term struct {
	Key      string
	Value    string // the value as written; "" for a bare term
	HasValue bool
	Pos      int
}

// String renders the term as it would be written.
func (t Term) String() string {
	if t.HasValue {
		return t.Key + "=" + t.Value
	}
	return t.Key
}

// String renders the event in canonical syntax; Parse reads it back to an equal spec.
func (e EventSpec) String() string {
	var s string
	switch e.Kind {
	case KindPMU:
		terms := make([]string, len(e.Terms))
		for i, t := range e.Terms {
			terms[i] = t.String()
		}
		s = e.Name + "/" + strings.Join(terms, ",") + "/"
		return s + e.Modifiers
	case KindTracepoint:
		s = e.Name + ":" + e.Event
	case KindNumeric:
		s = fmt.Sprintf("%d:%#x", e.Type, e.Config)
	default:
		s = e.Name
	}
	if e.Modifiers != "" {
		s += ":" + e.Modifiers
	}
	return s
}

// String renders the item in canonical syntax.
func (g GroupSpec) String() string {
	if !g.Braced && len(g.Events) == 1 {
		return g.Events[0].String()
	}
	parts := make([]string, len(g.Events))
	for i, e := range g.Events {
		parts[i] = e.String()
	}
	s := "{" + strings.Join(parts, ",") + "}"
	if g.Modifiers != "" {
		s += ":" + g.Modifiers
	}
	return s
}

// FormatSpecs renders a parsed event list in canonical syntax.
func FormatSpecs(groups []GroupSpec) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = g.String()
	}
	return strings.Join(parts, ",")
}

package metrics

import (
	"strings"

	"github.com/pmc-tools/pmc/internal/events"
)

// symbolOf finds a perf symbolic event (software, hardware, cache or tool) by any spelling,
// modifiers ignored ("cycles:u" is cycles).
func symbolOf(name string) (events.Symbol, bool) { return events.LookupSymbol(baseName(name)) }

// IsEventName reports whether name is one of perf's generic hardware, cache, software or
// tool event names (modifiers such as ":u" are ignored). A metric may not take one of these
// names, so that "cycles" in an expression always means the event.
func IsEventName(name string) bool {
	_, ok := symbolOf(name)
	return ok
}

// baseName strips perf modifiers: "cycles:u" -> "cycles".
func baseName(event string) string {
	if i := strings.IndexByte(event, ':'); i > 0 && !strings.Contains(event, "/") {
		return event[:i]
	}
	return event
}

// NeedsCounter reports whether the event occupies a PMU counter: false for software and
// tool events, which the kernel counts without one.
func NeedsCounter(event string) bool {
	s, ok := symbolOf(event)
	return !ok || (s.Class != events.Software && s.Class != events.Tool)
}

// isToolEvent reports whether the event is a tool event (wall time, rusage): Compute takes
// its value from the result when it was not counted.
func isToolEvent(event string) bool {
	s, ok := symbolOf(event)
	return ok && s.Class == events.Tool
}

// sameEvent reports whether a counted event (as the user wrote it) is the metric operand,
// directly or through a perf alias; modifiers must be identical ("cycles:u" is not "cycles").
func sameEvent(counted, operand string) bool {
	if counted == operand {
		return true
	}
	return canonical(counted) == canonical(operand)
}

// canonical is perf list's spelling of a symbolic event, with its modifiers.
func canonical(ev string) string {
	b, mod := ev, ""
	if i := strings.IndexByte(ev, ':'); i > 0 && !strings.Contains(ev, "/") {
		b, mod = ev[:i], ev[i:]
	}
	if s, ok := events.LookupSymbol(b); ok {
		b = s.Name
	}
	return b + mod
}

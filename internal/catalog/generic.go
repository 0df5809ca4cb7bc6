package catalog

import (
	"github.com/pmc-tools/pmc/internal/events"
)

// HardwareNames lists perf's generic hardware events (PERF_TYPE_HARDWARE), perf list's
// spelling, in the kernel's PERF_COUNT_HW_* order: the events package's table. (A function,
// not a variable: no work at package init, which every launch of pmc pays.)
func HardwareNames() []string { return events.Names(events.Hardware) }

// CacheNames lists perf's generic cache events (PERF_TYPE_HW_CACHE), canonical spelling.
func CacheNames() []string { return events.CacheNames() }

// CanonicalGeneric returns perf list's spelling of a generic hardware or cache event name
// given in any spelling perf accepts ("cycles" -> "cpu-cycles") and whether name is one.
func CanonicalGeneric(name string) (string, bool) {
	if s, ok := events.LookupSymbol(name); ok && (s.Class == events.Hardware || s.Class == events.Cache) {
		return s.Name, true
	}
	return "", false
}

// GenericKind is "hardware" or "cache" for a canonical generic name, "" otherwise.
func GenericKind(canon string) string {
	s, ok := events.LookupSymbol(canon)
	switch {
	case !ok || s.Name != canon:
		return ""
	case s.Class == events.Hardware:
		return "hardware"
	case s.Class == events.Cache:
		return "cache"
	}
	return ""
}

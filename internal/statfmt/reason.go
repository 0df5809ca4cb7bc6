package statfmt

import (
	"bytes"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// typeRaw is perf_event_attr.type PERF_TYPE_RAW: an event given by its code (rNNN).
const typeRaw = 4

// rawName is the name the CPU's table gives a raw event's code, from the label the machine
// resolved it to ("r3 (L1D_CACHE_REFILL)"); "" when it has none.
func rawName(e result.Encoding) string {
	if e.Type != typeRaw || !strings.HasSuffix(e.Raw, ")") {
		return ""
	}
	if i := strings.Index(e.Raw, " ("); i > 0 {
		return e.Raw[i+2 : len(e.Raw)-1]
	}
	return ""
}

// notCountedWhy is a <not counted> row's reason in a few words ("" for an interval's row,
// which is <not counted> when nothing ran in the interval).
func notCountedWhy(r result.Reason) string {
	switch r {
	case result.GroupTooLarge:
		return "group too large for the counters"
	case result.GroupLeader:
		return "its group's leader was refused"
	case result.NeverRan:
		return "never scheduled"
	}
	return ""
}

// notCountedHint is one line after a table with <not counted> rows, saying what helps.
func notCountedHint(b *bytes.Buffer, rows []row) {
	for _, r := range rows {
		if r.status == result.NotCounted {
			b.WriteString("\n hint: <not counted> events never got a hardware counter: count fewer events at once, " +
				"let -M plan groups that fit the counters, or repeat with -r (a longer run gives multiplexing time to rotate them in)\n")
			return
		}
	}
}

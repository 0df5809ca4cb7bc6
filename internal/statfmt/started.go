package statfmt

import "time"

// StartedLine is the comment perf stat writes at the top of an -o file, e.g.
// "# started on Sat Nov 21 05:59:17 2026" followed by a blank line. Text and perf-form
// CSV output written to a file begin with it, as perf's do.
func StartedLine(t time.Time) string {
	return "# started on " + t.Format("Mon Jan _2 15:04:05 2006") + "\n\n"
}

package statfmt

import (
	"testing"
	"time"
)

func TestStartedLine(t *testing.T) {
	// perf stat -o FILE writes "# started on Sat Nov 21 05:59:17 2026" and a blank line.
	got := StartedLine(time.Date(2026, 11, 21, 5, 59, 17, 0, time.UTC))
	if got != "# started on Sat Nov 21 05:59:17 2026\n\n" {
		t.Errorf("%q", got)
	}
	if got := StartedLine(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)); got != "# started on Tue Dec  1 09:00:00 2026\n\n" {
		t.Errorf("day padding: %q", got)
	}
}

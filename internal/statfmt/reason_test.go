package statfmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// TestNotCountedReason (issue 24 item 7): a <not counted> row says why (its group never got
// the counters, or needs more of them than the PMU has) and the table ends with one hint
// naming what helps: fewer events at once, -M (which plans groups that fit), -r.
func TestNotCountedReason(t *testing.T) {
	r := caseNotCounted()
	r.Runs[0].Counts = append(r.Runs[0].Counts, result.Count{Event: "LLC-loads", Group: 2, CPU: -1, Status: result.NotCounted,
		Reason: result.GroupTooLarge, Error: "group not counted: it needs more counters than the PMU has at once; split it into smaller groups"})
	r.Summary = nil
	result.Summarize(r)
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "<not counted>") {
			continue
		}
		switch {
		case strings.Contains(line, "<not counted>") && strings.Contains(line, "LLC-loads"):
			if !strings.Contains(line, "group too large for the counters") {
				t.Errorf("no reason on %q", line)
			}
		case strings.Contains(line, "<not counted>"):
			if !strings.Contains(line, "never scheduled") {
				t.Errorf("no reason on %q", line)
			}
		}
	}
	if strings.Count(out, "hint:") != 1 || !strings.Contains(out, "-M") || !strings.Contains(out, "-r") || !strings.Contains(out, "fewer events") {
		t.Errorf("want one hint naming fewer events, -M and -r:\n%s", out)
	}
	// A table where everything was counted has no hint.
	b.Reset()
	Text(&b, caseDefault(), TextOptions{})
	if strings.Contains(b.String(), "hint:") {
		t.Errorf("a hint without <not counted> rows:\n%s", b.String())
	}
}

// TestRawEventName (issue 24 item 7): a raw event prints with the name the CPU's table gives
// its code (the label the machine resolved it to), "r03 (L1D_CACHE_REFILL)"; CSV keeps the
// event as written, in perf's columns.
func TestRawEventName(t *testing.T) {
	r := finish(&result.Stat{Command: []string{"./a"}, Mode: "launch", Scaled: true, Backend: "perf_event",
		Runs: []result.Run{{ElapsedSec: 1, Counts: []result.Count{
			hw("r03", 0, result.Encoding{PMU: "armv8_pmuv3", Type: 4, Config: 3, Raw: "r3 (L1D_CACHE_REFILL)"}, 1234, 10, 10),
			hw("r1ff", 1, result.Encoding{PMU: "armv8_pmuv3", Type: 4, Config: 0x1ff, Raw: "r1ff"}, 5, 10, 10),
		}}}})
	var b bytes.Buffer
	Text(&b, r, TextOptions{})
	if !strings.Contains(b.String(), "1234      r03 (L1D_CACHE_REFILL)") || !strings.Contains(b.String(), "5      r1ff ") {
		t.Errorf("text:\n%s", b.String())
	}
	b.Reset()
	CSV(&b, r, CSVOptions{Sep: ','})
	if strings.Contains(b.String(), "L1D_CACHE_REFILL") {
		t.Errorf("CSV changed the event's name:\n%s", b.String())
	}
}

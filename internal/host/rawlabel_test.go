package host

import (
	"testing"

	"github.com/pmc-tools/pmc/internal/events"
)

// TestRawLabel (issue 24 item 7): a raw event is labelled with its name in the CPU's table
// where the table knows its code ("r3 (L1D_CACHE_REFILL)"), as a generic one is with its
// raw code; a code the table lacks, or a CPU without a table, keeps the bare code.
func TestRawLabel(t *testing.T) {
	for _, c := range []struct{ host, spec, want string }{
		{"qemu-a57", "r03", "r3 (L1D_CACHE_REFILL)"},
		{"qemu-a7", "r8", "r8 (INST_RETIRED)"},
		{"qemu-a57", "r3ff", "r3ff"},
		{"x86-vm", "r03", "r3"},
	} {
		gs, err := snapshot(t, c.host).Resolve(c.spec, events.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := gs[0].Events[0].Resolved; got != c.want {
			t.Errorf("%s %s: label %q, want %q", c.host, c.spec, got, c.want)
		}
	}
}

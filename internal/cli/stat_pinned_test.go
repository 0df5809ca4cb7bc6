package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestPinnedTooMany: pinned events that cannot all be on the PMU at once (a Cortex-A57 has 6
// general counters and the cycle counter) are one clear error before anything runs, with no
// counts printed; as many as fit are counted.
func TestPinnedTooMany(t *testing.T) {
	machine := filepath.Join("testdata", "fake", "machine-cortex-a57.json")
	fake := filepath.Join("testdata", "fake", "a57-default.json")
	pinned := func(n int) string {
		evs := []string{"cycles:D"}
		for range n {
			evs = append(evs, "instructions:D")
		}
		return strings.Join(evs, ",")
	}
	var stdout, stderr bytes.Buffer
	code := testRun([]string{"stat", "--fake-machine", machine, "--fake", fake, "-e", pinned(7), "--", "./matmul"}, &stdout, &stderr)
	msg := stderr.String()
	if code == 0 || stdout.Len() != 0 || strings.Count(strings.TrimSpace(msg), "\n") != 0 ||
		!strings.Contains(msg, "need 7 general counters at once; the PMU has 6") || !strings.Contains(msg, "drop the D modifier") {
		t.Errorf("7 pinned instructions + pinned cycles on 6 counters: exit %d, stdout %q, stderr %q; want a failure and one line naming the fix", code, stdout.String(), msg)
	}
	stdout.Reset()
	stderr.Reset()
	code = testRun([]string{"stat", "--fake-machine", machine, "--fake", fake, "-e", pinned(6), "--", "./matmul"}, &stdout, &stderr)
	if code != 0 || strings.Contains(stderr.String(), "general counters") {
		t.Errorf("6 pinned instructions + pinned cycles fit: exit %d, stderr %q", code, stderr.String())
	}
}

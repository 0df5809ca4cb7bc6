package testenv

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// CheckFDs fails the test if it ends with file descriptors open that were not open when it
// called CheckFDs: every fd owner in pmc (counters, sessions, launch pipes and pidfds, output
// files) must release what it opened, on success and on every error path.
func CheckFDs(t testing.TB) {
	t.Helper()
	before := openFDs(t)
	t.Cleanup(func() {
		after := openFDs(t)
		var leaked []string
		for fd, target := range after {
			// The launch shim's memfd is made at the first launch and kept for the process's life.
			if _, ok := before[fd]; !ok && !strings.HasPrefix(target, "/memfd:pmc-launch") {
				leaked = append(leaked, fmt.Sprintf("fd %s -> %s", fd, target))
			}
		}
		if len(leaked) > 0 {
			sort.Strings(leaked)
			t.Errorf("%d file descriptors leaked:\n  %s", len(leaked), strings.Join(leaked, "\n  "))
		}
	})
}

// OpenFDs counts this process's open file descriptors.
func OpenFDs(t testing.TB) int { return len(openFDs(t)) }

func openFDs(t testing.TB) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("listing open fds: %v", err)
	}
	out := make(map[string]string, len(ents))
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue // the fd ReadDir itself used, closed by now
		}
		out[e.Name()] = target
	}
	return out
}

package pmu

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A -C argument is a CPU list naming at least one CPU; a malformed one names -C and wraps
// ErrCPUList, an empty one (",") says to name a CPU.
func TestParseCPUFlag(t *testing.T) {
	if cpus, err := ParseCPUFlag("0-2,5"); err != nil || !slices.Equal(cpus, []int{0, 1, 2, 5}) {
		t.Errorf("0-2,5: %v %v", cpus, err)
	}
	if _, err := ParseCPUFlag("x"); !errors.Is(err, ErrCPUList) || !strings.HasPrefix(err.Error(), "-C: ") {
		t.Errorf("x: %v", err)
	}
	if _, err := ParseCPUFlag(" "); err == nil || !strings.Contains(err.Error(), "name at least one CPU") {
		t.Errorf("blank: %v", err)
	}
}

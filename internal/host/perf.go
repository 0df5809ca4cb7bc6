package host

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// ErrNoKernelNotes: the machine shows no /sys/kernel/notes (a snapshot without it, no sysfs).
var ErrNoKernelNotes = errors.New("no /sys/kernel/notes")

// KernelNotes returns the running kernel's ELF notes (/sys/kernel/notes), where its GNU
// build-id is (symbol.NoteBuildID reads it): perf records it so that a report can tell the
// recording's kernel from the one it runs on.
func (m *Machine) KernelNotes() ([]byte, error) {
	if m.Sys == nil {
		return nil, ErrNoKernelNotes
	}
	b, err := fs.ReadFile(m.Sys, "kernel/notes")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoKernelNotes
	}
	return b, err
}

// MaxSampleRate is kernel.perf_event_max_sample_rate: the highest sampling frequency the
// kernel accepts (perf_event_open refuses a higher sample_freq with EINVAL). The kernel
// lowers it by itself when sampling interrupts take too long.
func (m *Machine) MaxSampleRate() (uint64, error) {
	b, err := m.readRoot("proc/sys/kernel/perf_event_max_sample_rate")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("kernel.perf_event_max_sample_rate: %w", err)
	}
	return v, nil
}

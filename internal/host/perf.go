package host

import (
	"fmt"
	"strconv"
	"strings"
)

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

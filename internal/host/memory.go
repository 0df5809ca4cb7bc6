package host

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/unix"
)

// MemAvailable is the memory the kernel says can be allocated without swapping
// (/proc/meminfo's MemAvailable), in bytes.
func (m *Machine) MemAvailable() (int64, error) {
	b, err := m.readRoot("proc/meminfo")
	if err != nil {
		return 0, err
	}
	return ParseMemAvailable(b)
}

// AddressSpaceLeft is how much more address space this process may map under its
// RLIMIT_AS (ulimit -v): the limit minus /proc/self/status's VmSize. ok is false when there
// is no limit.
func (m *Machine) AddressSpaceLeft() (left int64, ok bool) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err != nil || lim.Cur == unix.RLIM_INFINITY {
		return 0, false
	}
	used := int64(0)
	if b, err := m.readRoot("proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
				if f := strings.Fields(rest); len(f) == 2 {
					kb, _ := strconv.ParseInt(f[0], 10, 64)
					used = kb << 10
				}
			}
		}
	}
	if lim.Cur > 1<<62 {
		return 0, false
	}
	return int64(lim.Cur) - used, true
}

// ParseMemAvailable reads MemAvailable from /proc/meminfo's contents, in bytes.
func ParseMemAvailable(meminfo []byte) (int64, error) {
	for _, line := range strings.Split(string(meminfo), "\n") {
		rest, ok := strings.CutPrefix(line, "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("meminfo: bad MemAvailable line %q", line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 || kb > 1<<50 {
			return 0, fmt.Errorf("meminfo: bad MemAvailable line %q", line)
		}
		return kb << 10, nil
	}
	return 0, errors.New("meminfo: no MemAvailable line")
}

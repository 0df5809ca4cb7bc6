package host

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// PerfUserAccess is /proc/sys/kernel/perf_user_access (arm64, Linux 5.17+): "1" lets user
// space read the counters of its own perf events (pmc mem times single hops with the cycle
// counter), "0" does not. ok is false when the file does not exist (older kernels, other
// architectures).
func (m *Machine) PerfUserAccess() (value string, ok bool) {
	b, err := m.readRoot("proc/sys/kernel/perf_user_access")
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// THPMode is the system's transparent huge page setting, the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise", "never"); "" when the
// kernel has no THP.
func (m *Machine) THPMode() string {
	if m.Sys == nil {
		return ""
	}
	b, err := fs.ReadFile(m.Sys, "kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	return ParseTHPMode(b)
}

// ParseTHPMode returns the selected word of a THP "enabled" file ("always [madvise] never").
func ParseTHPMode(b []byte) string {
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}

// AnonHugeBytes is the memory backed by transparent huge pages in this process's mapping
// that contains addr (/proc/self/smaps, AnonHugePages of that mapping).
func (m *Machine) AnonHugeBytes(addr uint64) (int64, error) {
	b, err := m.readRoot("proc/self/smaps")
	if err != nil {
		return 0, err
	}
	return ParseSmapsAnonHuge(b, addr)
}

// ParseSmapsAnonHuge reads the AnonHugePages line (kB) of the mapping that contains addr in
// the text of a /proc/PID/smaps file, in bytes.
func ParseSmapsAnonHuge(smaps []byte, addr uint64) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	in := false
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := smapsRange(f[0]); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if in && f[0] == "AnonHugePages:" {
			if len(f) < 2 {
				break
			}
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb < 0 || kb > 1<<40 {
				return 0, fmt.Errorf("smaps: bad AnonHugePages %q", line)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("smaps: no mapping with AnonHugePages contains %#x", addr)
}

// smapsRange parses a mapping header's first field, "7f12a000-7f12c000".
func smapsRange(s string) (lo, hi uint64, ok bool) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	return lo, hi, err1 == nil && err2 == nil && lo <= hi
}

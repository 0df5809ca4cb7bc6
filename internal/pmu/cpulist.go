package pmu

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrCPUList reports a malformed kernel CPU list.
var ErrCPUList = errors.New("bad cpu list")

// maxCPU bounds CPU numbers so that a corrupt range cannot allocate without limit.
const maxCPU = 1 << 16

// ParseCPUFlag reads the argument of a -C option (pmc stat's, pmc record's): a CPU list that
// names at least one CPU.
func ParseCPUFlag(s string) ([]int, error) {
	cpus, err := ParseCPUList(s)
	if err != nil {
		return nil, fmt.Errorf("-C: %w", err)
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("-C %q: name at least one CPU, e.g. -C 0 or -C 0-3", s)
	}
	return cpus, nil
}

// ParseCPUList parses the kernel's CPU list syntax ("0-3,5", "" for none) into sorted,
// de-duplicated CPU numbers.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	seen := map[int]bool{}
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		l, err := parseCPU(lo)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrCPUList, s, err)
		}
		h := l
		if isRange {
			if h, err = parseCPU(hi); err != nil {
				return nil, fmt.Errorf("%w %q: %v", ErrCPUList, s, err)
			}
			if h < l {
				return nil, fmt.Errorf("%w %q: range %s is reversed", ErrCPUList, s, part)
			}
		}
		for c := l; c <= h; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	slices.Sort(cpus)
	return cpus, nil
}

func parseCPU(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= maxCPU || s[0] == '+' {
		return 0, fmt.Errorf("bad cpu number %q", s)
	}
	return n, nil
}

// FormatCPUList prints sorted CPU numbers in the kernel's and perf's -C syntax: "0-3,6"
// (the inverse of ParseCPUList).
func FormatCPUList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

package mem

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// CacheDir is where one CPU's cache descriptions live, relative to the root of a sysfs FS
// (Documentation/ABI/testing/sysfs-devices-system-cpu, "cache/index*").
const CacheDir = "devices/system/cpu/cpu%d/cache"

// ErrNoCaches reports a sysfs tree that describes no caches for the CPU (some ARM boards and
// QEMU guests publish none).
var ErrNoCaches = errors.New("no cache descriptions in sysfs")

// Cache is one cache as sysfs describes it.
type Cache struct {
	Level      int    `json:"level"`
	Type       string `json:"type"`       // "Data", "Instruction", "Unified"
	SizeBytes  int64  `json:"size_bytes"` // capacity
	LineBytes  int    `json:"line_bytes,omitempty"`
	Ways       int    `json:"ways,omitempty"`
	SharedCPUs string `json:"shared_cpus,omitempty"` // shared_cpu_list, e.g. "0-1"
}

// Name is the usual short name: L1d, L1i, L2, L3.
func (c Cache) Name() string {
	switch c.Type {
	case "Data":
		return fmt.Sprintf("L%dd", c.Level)
	case "Instruction":
		return fmt.Sprintf("L%di", c.Level)
	}
	return fmt.Sprintf("L%d", c.Level)
}

// HoldsData reports whether loads can hit in this cache (data or unified).
func (c Cache) HoldsData() bool { return c.Type != "Instruction" }

// ReadCaches reads cpu's caches from sysfs, an FS rooted like /sys, sorted by level then type.
// The level, type and size files are required in every index directory; the others are
// optional.
func ReadCaches(sysfs fs.FS, cpu int) ([]Cache, error) {
	dir := fmt.Sprintf(CacheDir, cpu)
	entries, err := fs.ReadDir(sysfs, dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoCaches, err)
	}
	var out []Cache
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		c, err := readIndex(sysfs, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s has no index directories", ErrNoCaches, dir)
	}
	slices.SortStableFunc(out, func(a, b Cache) int {
		if a.Level != b.Level {
			return a.Level - b.Level
		}
		return strings.Compare(a.Type, b.Type)
	})
	return out, nil
}

func readIndex(sysfs fs.FS, dir string) (Cache, error) {
	var c Cache
	read := func(name string) (string, error) {
		b, err := fs.ReadFile(sysfs, path.Join(dir, name))
		return strings.TrimSpace(string(b)), err
	}
	s, err := read("level")
	if err != nil {
		return c, fmt.Errorf("cache %s: %w", dir, err)
	}
	if c.Level, err = strconv.Atoi(s); err != nil || c.Level < 1 {
		return c, fmt.Errorf("cache %s: bad level %q", dir, s)
	}
	if c.Type, err = read("type"); err != nil {
		return c, fmt.Errorf("cache %s: %w", dir, err)
	}
	switch c.Type {
	case "Data", "Instruction", "Unified":
	default:
		return c, fmt.Errorf("cache %s: unknown type %q", dir, c.Type)
	}
	if s, err = read("size"); err != nil {
		return c, fmt.Errorf("cache %s: %w", dir, err)
	}
	if c.SizeBytes, err = ParseSize(s); err != nil {
		return c, fmt.Errorf("cache %s: %w", dir, err)
	}
	if s, err := read("coherency_line_size"); err == nil {
		c.LineBytes, _ = strconv.Atoi(s)
	}
	if s, err := read("ways_of_associativity"); err == nil {
		c.Ways, _ = strconv.Atoi(s)
	}
	if s, err := read("shared_cpu_list"); err == nil {
		c.SharedCPUs = s
	}
	return c, nil
}

// ParseSize reads a size as sysfs and pmc's flags write it: a decimal number of bytes with an
// optional binary suffix K, M or G (KiB, MiB, GiB; "32K", "32768K", "1M", "4KiB", "256MiB").
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "iB"), "B")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K', 'k':
			shift = 10
		case 'M', 'm':
			shift = 20
		case 'G', 'g':
			shift = 30
		}
		if shift != 0 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q: want bytes with an optional K, M or G suffix, e.g. 32K", s)
	}
	if v > (1<<62)>>shift {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return v << shift, nil
}

// FormatSize writes bytes with the largest binary unit that divides it exactly, or with one
// decimal when none does: 32768 -> "32 KiB", 46336 -> "45.2 KiB".
func FormatSize(b int64) string {
	units := []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}}
	for _, u := range units {
		if b >= 1<<u.shift && b%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", b>>u.shift, u.name)
		}
	}
	for _, u := range units {
		if b >= 1<<u.shift {
			return fmt.Sprintf("%.1f %s", float64(b)/float64(int64(1)<<u.shift), u.name)
		}
	}
	return fmt.Sprintf("%d B", b)
}

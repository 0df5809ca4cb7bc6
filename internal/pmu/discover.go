package pmu

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// DevicesDir is where PMUs live, relative to the root of a sysfs FS.
const DevicesDir = "bus/event_source/devices"

// OnlineFile lists the online CPUs, relative to the root of a sysfs FS.
const OnlineFile = "devices/system/cpu/online"

// ErrNoPMUs reports a sysfs tree without an event_source bus.
var ErrNoPMUs = errors.New("no pmus found")

// PMU is one registered performance monitoring unit.
type PMU struct {
	Name    string
	Type    uint32            // perf_event_attr.type
	Formats map[string]Format // format/<field>
	Events  map[string]Alias  // events/<name>
	CPUs    []int             // from cpus or cpumask; nil when the PMU names none
	Caps    map[string]string // caps/<name>, trimmed
}

// Alias is a named sysfs event: the term list the PMU's events/<name> file holds, plus the
// optional .unit and .scale companions.
type Alias struct {
	Name  string
	Terms string  // e.g. "event=0x3c,umask=0x00"
	Unit  string  // events/<name>.unit, "" when absent
	Scale float64 // events/<name>.scale, 1 when absent
}

// System is the set of PMUs of one machine and its online CPUs.
type System struct {
	PMUs   map[string]*PMU
	Online []int
}

// Discover reads every PMU under bus/event_source/devices of sysfs, an FS rooted like /sys.
// A PMU without a readable type file is an error; missing format, events, caps and cpumask
// are not (most PMUs lack some of them). A missing online file leaves Online nil.
func Discover(sysfs fs.FS) (*System, error) {
	entries, err := fs.ReadDir(sysfs, DevicesDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPMUs, err)
	}
	sys := &System{PMUs: map[string]*PMU{}}
	for _, e := range entries {
		p, err := readPMU(sysfs, e.Name())
		if err != nil {
			return nil, err
		}
		sys.PMUs[p.Name] = p
	}
	if b, err := fs.ReadFile(sysfs, OnlineFile); err == nil {
		if sys.Online, err = ParseCPUList(string(b)); err != nil {
			return nil, fmt.Errorf("%s: %w", OnlineFile, err)
		}
	}
	return sys, nil
}

func readPMU(sysfs fs.FS, name string) (*PMU, error) {
	dir := path.Join(DevicesDir, name)
	b, err := fs.ReadFile(sysfs, path.Join(dir, "type"))
	if err != nil {
		return nil, fmt.Errorf("pmu %s: %w", name, err)
	}
	t, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pmu %s: bad type %q", name, strings.TrimSpace(string(b)))
	}
	p := &PMU{Name: name, Type: uint32(t), Formats: map[string]Format{},
		Events: map[string]Alias{}, Caps: map[string]string{}}
	files, err := readDirFiles(sysfs, path.Join(dir, "format"))
	if err != nil {
		return nil, fmt.Errorf("pmu %s: %w", name, err)
	}
	for f, text := range files {
		if p.Formats[f], err = ParseFormat(text); err != nil {
			return nil, fmt.Errorf("pmu %s: format/%s: %w", name, f, err)
		}
	}
	if len(p.Formats) == 0 && strings.HasPrefix(name, "armv6") {
		// Linux's ARMv6 driver (armv6_1136, _1156, _1176, _11mpcore: the Raspberry Pi 1 and
		// Zero) publishes no format directory. Its event numbers are the 8 bits of the
		// counters' EvtCount fields, the field raw events (rNN) fill anyway.
		p.Formats["event"] = Format{Word: 0, Ranges: []BitRange{{Lo: 0, Hi: 7}}}
	}
	if p.Events, err = readAliases(sysfs, path.Join(dir, "events")); err != nil {
		return nil, fmt.Errorf("pmu %s: %w", name, err)
	}
	if p.Caps, err = readDirFiles(sysfs, path.Join(dir, "caps")); err != nil {
		return nil, fmt.Errorf("pmu %s: %w", name, err)
	}
	for _, f := range []string{"cpus", "cpumask"} {
		if b, err := fs.ReadFile(sysfs, path.Join(dir, f)); err == nil {
			if p.CPUs, err = ParseCPUList(string(b)); err != nil {
				return nil, fmt.Errorf("pmu %s: %s: %w", name, f, err)
			}
			break
		}
	}
	return p, nil
}

// readDirFiles reads every regular file of dir into a map of trimmed contents. A missing
// directory yields an empty map; unreadable files (sysfs has write-only ones) are skipped.
func readDirFiles(fsys fs.FS, dir string) (map[string]string, error) {
	out := map[string]string{}
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		out[e.Name()] = strings.TrimSpace(string(b))
	}
	return out, nil
}

func readAliases(fsys fs.FS, dir string) (map[string]Alias, error) {
	files, err := readDirFiles(fsys, dir)
	if err != nil {
		return nil, err
	}
	out := map[string]Alias{}
	for name, text := range files {
		if strings.Contains(name, ".") {
			continue // .unit, .scale, .per-pkg, .snapshot companions
		}
		a := Alias{Name: name, Terms: text, Unit: files[name+".unit"], Scale: 1}
		if s, ok := files[name+".scale"]; ok {
			if a.Scale, err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("events/%s.scale: bad number %q", name, s)
			}
		}
		out[name] = a
	}
	return out, nil
}

// Names lists the PMU names, sorted.
func (s *System) Names() []string {
	var names []string
	for n := range s.PMUs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ByType returns the PMU whose type is t, or nil.
func (s *System) ByType(t uint32) *PMU {
	for _, n := range s.Names() {
		if s.PMUs[n].Type == t {
			return s.PMUs[n]
		}
	}
	return nil
}

// Core returns the CPU's own PMU: "cpu" on x86, otherwise the first PMU (by name) that has an
// "event" format field and either type 4 (PERF_TYPE_RAW) or an ARM core-PMU name (armv*).
// It returns nil when the machine exposes none (a VM without a virtual PMU).
func (s *System) Core() *PMU {
	if p, ok := s.PMUs["cpu"]; ok {
		return p
	}
	for _, n := range s.Names() {
		p := s.PMUs[n]
		if _, ok := p.Formats["event"]; !ok {
			continue
		}
		if p.Type == 4 || strings.HasPrefix(n, "armv") || strings.HasPrefix(n, "cpu_") {
			return p
		}
	}
	return nil
}

// FormatNames lists the PMU's format fields, sorted.
func (p *PMU) FormatNames() []string { return sortedKeys(p.Formats) }

// EventNames lists the PMU's sysfs event names, sorted.
func (p *PMU) EventNames() []string { return sortedKeys(p.Events) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

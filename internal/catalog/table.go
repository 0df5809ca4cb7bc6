package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// Catalog is the set of known event tables.
type Catalog struct {
	tables []*Table
}

// Table is the event list of one CPU (or of an architecture's standard events).
type Table struct {
	Name     string // short name used by --cpu: "cortex-a7", "armv8", "amd-zen3"
	Title    string // human name
	Arch     string // "armv6", "armv7", "armv8" or "x86"
	Std      string // table whose events ArchStdEvent entries refer to ("" if none)
	CodeBits int    // width of EventCode: 8 (ARMv6/v7), 16 (Armv8), 12 (x86)
	// Counters are the PMU's counters on this CPU; nil for an architecture's standard table,
	// which says nothing of a core.
	Counters *Counters
	// IssueWidth is the most instructions the core issues per cycle (the plausibility bound
	// of IPC); 0 when not recorded.
	IssueWidth float64

	// The fields below have no maps, so that the built-in tables (tables_gen.go) are
	// static data: nothing runs to build them when pmc starts.
	events  []Event
	names   []nameKey // every event's folded name and index, sorted by name: Lookup's index
	generic []Mapping // what generic.json records, sorted by Generic
	match   []matchRule
}

// nameKey is one entry of Table.names.
type nameKey struct {
	Key   string // foldName of the event's name
	Index int
}

// Counters describes a CPU's PMU counters, as its manual gives them (PMCR.N on Arm cores).
type Counters struct {
	General int      // general-purpose counters
	Cycle   bool     // a dedicated cycle counter (cycles take no general counter)
	Fixed   []string // other events with a counter of their own, as perf names them
	Assumed bool     // a typical value for a family whose models differ
	Note    string   // what the numbers leave out, in words
}

// String is the counters in words: "4 + cycle counter".
func (c Counters) String() string {
	s := fmt.Sprintf("%d general", c.General)
	if c.Cycle {
		s = fmt.Sprintf("%d + cycle counter", c.General)
	}
	for _, f := range c.Fixed {
		s += " + " + f
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return s
}

// Tables returns every table in mapfile order.
func (c *Catalog) Tables() []*Table { return append([]*Table(nil), c.tables...) }

// ByName finds a table by its short name ("cortex-a7", "armv8", "zen3", "arm1176"),
// case-insensitively; "zen3"/"zen4" and "intel" are accepted for the x86 tables.
func (c *Catalog) ByName(name string) (*Table, bool) {
	n := foldName(name)
	if t := c.byName(n); t != nil {
		return t, true
	}
	for _, prefix := range []string{"amd-", "arm-", "intel-"} {
		if t := c.byName(prefix + n); t != nil {
			return t, true
		}
	}
	if n == "intel" {
		return c.ByName("intel-arch")
	}
	return nil, false
}

// byName finds a table by its folded name.
func (c *Catalog) byName(folded string) *Table {
	for _, t := range c.tables {
		if foldName(t.Name) == folded {
			return t
		}
	}
	return nil
}

// Names lists the table names.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.tables))
	for i, t := range c.tables {
		out[i] = t.Name
	}
	return out
}

// ForCPU returns the table written for cpu, matched by identity in the mapfile.
// It returns false when no table names this CPU; see Fallback.
func (c *Catalog) ForCPU(cpu CPU) (*Table, bool) {
	for _, t := range c.tables {
		for _, r := range t.match {
			if r.matches(cpu) {
				return t, true
			}
		}
	}
	return nil, false
}

// Fallback returns the architecture-level table for a CPU without its own table: armv8
// for Armv8 cores under a 64-bit kernel, armv7 for other Arm cores, nil for x86.
func (c *Catalog) Fallback(cpu CPU) *Table {
	if cpu.ISA != "arm" {
		return nil
	}
	if cpu.Architecture >= 8 {
		return c.byName("armv8")
	}
	return c.byName("armv7")
}

func (r matchRule) matches(cpu CPU) bool {
	if r.Vendor != "" {
		if cpu.ISA != "x86" || cpu.Vendor != r.Vendor {
			return false
		}
		if r.Family != "" {
			f, err := parseCode(r.Family)
			if err != nil || uint64(cpu.Family) != f {
				return false
			}
		}
		if r.Models != "" {
			lo, hi, ok := strings.Cut(r.Models, "-")
			l, err1 := parseCode(lo)
			h, err2 := parseCode(hi)
			if !ok || err1 != nil || err2 != nil || uint64(cpu.Model) < l || uint64(cpu.Model) > h {
				return false
			}
		}
		return true
	}
	if cpu.ISA != "arm" || r.Implementer == "" {
		return false
	}
	impl, err1 := parseCode(r.Implementer)
	part, err2 := parseCode(r.Part)
	if err1 != nil || err2 != nil || uint64(cpu.Implementer) != impl || uint64(cpu.Part) != part {
		return false
	}
	return r.Architecture == 0 || r.Architecture == cpu.Architecture
}

// Events returns the table's events in file order.
func (t *Table) Events() []Event { return append([]Event(nil), t.events...) }

// Len is the number of events.
func (t *Table) Len() int { return len(t.events) }

// Lookup finds an event by name, case-insensitively.
func (t *Table) Lookup(name string) (Event, bool) {
	key := foldName(name)
	i := sort.Search(len(t.names), func(i int) bool { return t.names[i].Key >= key })
	if i == len(t.names) || t.names[i].Key != key {
		return Event{}, false
	}
	return t.events[t.names[i].Index], true
}

// mapping is what generic.json records for a canonical generic name.
func (t *Table) mapping(canon string) (Mapping, bool) {
	i := sort.Search(len(t.generic), func(i int) bool { return t.generic[i].Generic >= canon })
	if i == len(t.generic) || t.generic[i].Generic != canon {
		return Mapping{}, false
	}
	return t.generic[i], true
}

// ByCode returns the events with the given code (several on x86, one per unit mask).
func (t *Table) ByCode(code uint64) []Event {
	var out []Event
	for _, e := range t.events {
		if e.Code == code {
			out = append(out, e)
		}
	}
	return out
}

// ByConfig returns the events a raw perf_event_attr.config (pmc stat -e rNNN) counts on this
// CPU: on x86 the config holds the event select (bits 0-7, AMD's extension in bits 32-35)
// and the unit mask (bits 8-15), and both must match; elsewhere the config is the event code.
// It also returns the config as the hardware reads it, in words.
func (t *Table) ByConfig(config uint64) ([]Event, string) {
	if t.Arch != "x86" {
		return t.ByCode(config), fmt.Sprintf("event 0x%02x", config)
	}
	code := config&0xff | (config>>24)&0xf00
	umask := config >> 8 & 0xff
	var out []Event
	for _, e := range t.events {
		if e.Code == code && e.UMask == umask {
			out = append(out, e)
		}
	}
	return out, fmt.Sprintf("event 0x%02x, umask 0x%02x", code, umask)
}

// Generic returns what each generic perf name means on this CPU, keyed by canonical name.
// Names the table does not mention are reported unsupported.
func (t *Table) Generic() map[string]Mapping {
	hw, cache := HardwareNames(), CacheNames()
	out := make(map[string]Mapping, len(hw)+len(cache))
	for _, names := range [][]string{hw, cache} {
		for _, n := range names {
			out[n] = t.meaning(n)
		}
	}
	return out
}

// meaning is what the canonical generic name canon means on this CPU: unsupported when the
// table does not mention it.
func (t *Table) meaning(canon string) Mapping {
	if m, ok := t.mapping(canon); ok {
		return m
	}
	return Mapping{Generic: canon, Kind: GenericKind(canon), Caveat: "no mapping recorded for this CPU"}
}

// MapGeneric resolves one generic name (any perf spelling) on this CPU.
func (t *Table) MapGeneric(name string) (Mapping, bool) {
	canon, ok := CanonicalGeneric(name)
	if !ok {
		return Mapping{}, false
	}
	return t.meaning(canon), true
}

// codeLimit is the largest event code the table's architecture can encode.
func (t *Table) codeLimit() uint64 {
	if t.CodeBits <= 0 || t.CodeBits >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(t.CodeBits) - 1
}

// check validates the table: code widths and unit masks in range.
func (t *Table) check() []error {
	var errs []error
	limit := t.codeLimit()
	for _, e := range t.events {
		if e.Code > limit {
			errs = append(errs, fmt.Errorf("%w: event %s code 0x%x does not fit in %d bits", ErrFormat, e.Name, e.Code, t.CodeBits))
		}
		if e.HasUMask && t.Arch != "x86" && t.Arch != "" {
			errs = append(errs, fmt.Errorf("%w: event %s has a UMask, which only x86 events have", ErrFormat, e.Name))
		}
		if e.UMask > 0xff {
			errs = append(errs, fmt.Errorf("%w: event %s unit mask 0x%x does not fit in 8 bits", ErrFormat, e.Name, e.UMask))
		}
	}
	return errs
}

// LoadExtra reads additional event tables for --event-file: fsys holds one or more .json
// files in the kernel pmu-events format (a JSON array) or the Intel perfmon format
// ({"Header":...,"Events":[...]}). ArchStdEvent entries resolve against the armv8 table.
// The result is named "extra" and has no generic map.
func (c *Catalog) LoadExtra(fsys fs.FS) (*Table, error) {
	t := &Table{Name: "extra", Title: "events from --event-file"}
	std := c.byName("armv8")
	if err := t.readEvents(fsys, std); err != nil {
		return nil, fmt.Errorf("event file: %w", err)
	}
	t.Arch = guessArch(t.events)
	switch t.Arch {
	case "x86":
		t.CodeBits = 12
	case "armv8":
		t.CodeBits = 16
	}
	if errs := t.check(); len(errs) > 0 {
		return nil, fmt.Errorf("event file: %w", errors.Join(errs...))
	}
	return t, nil
}

// guessArch calls a table x86 if any event has a unit mask, Armv8 otherwise.
func guessArch(evs []Event) string {
	for _, e := range evs {
		if e.HasUMask {
			return "x86"
		}
	}
	return "armv8"
}

// Sorted returns the events ordered by code, then unit mask, then name.
func (t *Table) Sorted() []Event {
	evs := t.Events()
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		if a.UMask != b.UMask {
			return a.UMask < b.UMask
		}
		return a.Name < b.Name
	})
	return evs
}

package catalog

import (
	"fmt"
	"strings"
)

// Event is one hardware event of a table.
type Event struct {
	Name     string // EventName, e.g. "L1D_CACHE_REFILL" or "ls_dc_accesses"
	Code     uint64 // EventCode: 8 bits on ARMv6/v7, 16 on Armv8, 12 on x86
	UMask    uint64 // x86 unit mask (0 elsewhere)
	HasUMask bool
	Brief    string // BriefDescription: one line
	Public   string // PublicDescription: the longer explanation (may be empty)
	Unit     string // PMU the event belongs to when not the core PMU (Unit field); usually empty
	// ArchStd is true when the table took the event from its architecture's standard list
	// through an ArchStdEvent reference rather than defining it itself.
	ArchStd bool
}

// Description is the longest description the event has.
func (e Event) Description() string {
	if e.Public != "" {
		return e.Public
	}
	return e.Brief
}

// Config is the perf_event_attr.config value for the event on the core PMU of arch
// ("x86" encodes the unit mask in bits 8-15 and event bits 8-11 in bits 32-35).
func (e Event) Config(arch string) uint64 {
	if arch == "x86" {
		return e.Code&0xff | e.UMask<<8 | (e.Code&0xf00)<<24
	}
	return e.Code
}

// CodeString is the event number as pmc prints it: 0x03, 0x4000, 0x60/0xff (x86 code/umask).
func (e Event) CodeString(arch string) string {
	if arch == "x86" {
		if e.HasUMask {
			return fmt.Sprintf("0x%02x/0x%02x", e.Code, e.UMask)
		}
		return fmt.Sprintf("0x%02x", e.Code)
	}
	if e.Code > 0xff {
		return fmt.Sprintf("0x%04x", e.Code)
	}
	return fmt.Sprintf("0x%02x", e.Code)
}

// PerfSyntax is how to ask perf (and pmc) for the event: r11 on Arm, cpu/event=..,umask=../ on x86.
func (e Event) PerfSyntax(arch string) string {
	if arch == "x86" {
		if e.HasUMask {
			return fmt.Sprintf("cpu/event=0x%x,umask=0x%x/", e.Code, e.UMask)
		}
		return fmt.Sprintf("cpu/event=0x%x/", e.Code)
	}
	return fmt.Sprintf("r%x", e.Code)
}

// Mapping is what a generic perf name means on one CPU.
type Mapping struct {
	Generic   string // canonical generic name, e.g. "cache-misses"
	Kind      string // "hardware" or "cache"
	Supported bool
	Event     Event  // the raw event (zero when unsupported)
	Caveat    string // what the number really counts, in words; may be empty
}

func (m Mapping) String() string {
	if !m.Supported {
		return m.Generic + ": not supported"
	}
	return fmt.Sprintf("%s: %s", m.Generic, m.Event.Name)
}

// foldName is the case-insensitive key for event and table names.
func foldName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

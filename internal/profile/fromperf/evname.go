package fromperf

import (
	"fmt"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// perf's names of the generic events (evsel__hw_names, evsel__sw_names), by config.
var (
	hwNames = []string{"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"}
	swNames = []string{"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output",
		"cgroup-switches"}
	cacheNames   = []string{"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node"}
	cacheOps     = [][2]string{{"load", "loads"}, {"store", "stores"}, {"prefetch", "prefetches"}}
	cacheResults = []string{"refs", "misses"}
)

// The attribute types perf names itself (PERF_TYPE_*).
const (
	typeHardware = 0
	typeSoftware = 1
	typeHWCache  = 3
	typeRaw      = 4
)

// attrName is the name perf gives an event that its file does not name (no EVENT_DESC,
// as in pipe mode before perf 4.x): the generic event's name and perf's modifiers
// (evsel__name, evsel__add_modifiers), "" when perf would not know it either.
func attrName(a perfdata.Attr) string {
	var name string
	switch c := a.Config; a.Type {
	case typeHardware:
		c &= 0xffffffff // the upper half names a hybrid PMU
		if c >= uint64(len(hwNames)) {
			return ""
		}
		name = hwNames[c]
	case typeSoftware:
		if c >= uint64(len(swNames)) {
			return ""
		}
		name = swNames[c]
	case typeHWCache:
		cache, op, res := c&0xff, c>>8&0xff, c>>16&0xff
		if cache >= uint64(len(cacheNames)) || op >= uint64(len(cacheOps)) || res >= uint64(len(cacheResults)) {
			return ""
		}
		if res == 1 {
			name = cacheNames[cache] + "-" + cacheOps[op][0] + "-" + cacheResults[res]
		} else {
			name = cacheNames[cache] + "-" + cacheOps[op][1]
		}
	case typeRaw:
		name = fmt.Sprintf("r%x", c)
	default:
		return ""
	}
	return name + modifiers(a)
}

// modifiers is perf's suffix for the attribute's exclude bits and precision: ":u", ":ppp",
// ":ppH"... ("" for none).
func modifiers(a perfdata.Attr) string {
	var m []byte
	has := func(flag uint64) bool { return a.Flags&flag != 0 }
	guestDefault := false
	if has(perfdata.FlagExcludeKernel) || has(perfdata.FlagExcludeUser) || has(perfdata.FlagExcludeHV) {
		if !has(perfdata.FlagExcludeKernel) {
			m = append(m, 'k')
		}
		if !has(perfdata.FlagExcludeUser) {
			m = append(m, 'u')
		}
		if !has(perfdata.FlagExcludeHV) {
			m = append(m, 'h')
		}
		guestDefault = true
	}
	if p := a.PreciseIP(); p > 0 {
		m = append(m, "ppp"[:p]...)
		guestDefault = true
	}
	if has(perfdata.FlagExcludeHost) || has(perfdata.FlagExcludeGuest) == guestDefault {
		if !has(perfdata.FlagExcludeHost) {
			m = append(m, 'H')
		}
		if !has(perfdata.FlagExcludeGuest) {
			m = append(m, 'G')
		}
	}
	if len(m) == 0 {
		return ""
	}
	return ":" + string(m)
}

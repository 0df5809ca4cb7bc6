package events

import (
	"strings"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
)

// Class sorts perf's symbolic events.
type Class int

const (
	Software Class = iota + 1 // counted by the kernel, no PMU counter (PERF_TYPE_SOFTWARE)
	Hardware                  // generic hardware events (PERF_TYPE_HARDWARE)
	Cache                     // generic cache events (PERF_TYPE_HW_CACHE)
	Tool                      // perf's tool events: not counters, pmc measures them itself
)

// Symbol is one of perf's symbolic event names. This table is pmc's one list of them: the
// event parser, the catalog's generic names, the metrics, pmc list and pmc explain derive
// theirs from it.
type Symbol struct {
	Name    string   // perf list's spelling: "cpu-cycles", "branch-instructions"
	Aliases []string // other spellings perf accepts: "cycles", "branches", "faults"
	Label   string   // the spelling pmc resolves the event to, as perf stat prints it; "" is Name
	Class   Class
	Type    uint32 // perf_event_attr.type (Tool: none)
	Config  uint64
	Desc    string // what it counts, in one line
}

// label is the spelling a resolved event gets.
func (s Symbol) label() string {
	if s.Label != "" {
		return s.Label
	}
	return s.Name
}

// Spellings are Name and the aliases.
func (s Symbol) Spellings() []string { return append([]string{s.Name}, s.Aliases...) }

// symbols are perf 6.1's symbolic event names (tools/perf/util/parse-events.l and
// util/tool_pmu), software first, then hardware in PERF_COUNT_HW_* order, then tool events.
var symbols = []Symbol{
	{"cpu-clock", nil, "", Software, pe.TypeSoftware, pe.SWCPUClock, "CPU time from a per-CPU high-resolution timer, in ns (shown in msec)"},
	{"task-clock", nil, "", Software, pe.TypeSoftware, pe.SWTaskClock, "time the measured tasks spent on a CPU, in ns (shown in msec)"},
	{"page-faults", []string{"faults"}, "", Software, pe.TypeSoftware, pe.SWPageFaults, "page faults, minor and major"},
	{"minor-faults", nil, "", Software, pe.TypeSoftware, pe.SWPageFaultsMin, "page faults served without I/O"},
	{"major-faults", nil, "", Software, pe.TypeSoftware, pe.SWPageFaultsMaj, "page faults that needed I/O"},
	{"context-switches", []string{"cs"}, "", Software, pe.TypeSoftware, pe.SWContextSwitches, "times a measured task was switched out"},
	{"cpu-migrations", []string{"migrations"}, "", Software, pe.TypeSoftware, pe.SWCPUMigrations, "times a measured task moved to another CPU"},
	{"alignment-faults", nil, "", Software, pe.TypeSoftware, pe.SWAlignmentFaults, "unaligned accesses fixed up by the kernel (never on x86)"},
	{"emulation-faults", nil, "", Software, pe.TypeSoftware, pe.SWEmulationFaults, "instructions the kernel emulated"},
	{"dummy", nil, "", Software, pe.TypeSoftware, pe.SWDummy, "counts nothing; carries side-band records for sampling"},
	{"bpf-output", nil, "", Software, pe.TypeSoftware, pe.SWBPFOutput, "output channel for BPF programs"},
	{"cgroup-switches", nil, "", Software, pe.TypeSoftware, pe.SWCgroupSwitches, "context switches that changed cgroup"},

	{"cpu-cycles", []string{"cycles"}, "cycles", Hardware, pe.TypeHardware, pe.HWCPUCycles, "core clock cycles"},
	{"instructions", nil, "", Hardware, pe.TypeHardware, pe.HWInstructions, "instructions retired"},
	{"cache-references", nil, "", Hardware, pe.TypeHardware, pe.HWCacheReferences, "cache accesses (the level depends on the CPU)"},
	{"cache-misses", nil, "", Hardware, pe.TypeHardware, pe.HWCacheMisses, "cache misses (the level depends on the CPU)"},
	{"branch-instructions", []string{"branches"}, "branches", Hardware, pe.TypeHardware, pe.HWBranchInstructions, "branch instructions retired"},
	{"branch-misses", nil, "", Hardware, pe.TypeHardware, pe.HWBranchMisses, "mispredicted branches"},
	{"bus-cycles", nil, "", Hardware, pe.TypeHardware, pe.HWBusCycles, "bus clock cycles"},
	{"stalled-cycles-frontend", []string{"idle-cycles-frontend"}, "", Hardware, pe.TypeHardware, pe.HWStalledCyclesFrontend, "cycles the front end issued nothing"},
	{"stalled-cycles-backend", []string{"idle-cycles-backend"}, "", Hardware, pe.TypeHardware, pe.HWStalledCyclesBackend, "cycles the back end retired nothing"},
	{"ref-cycles", nil, "", Hardware, pe.TypeHardware, pe.HWRefCPUCycles, "reference cycles at a constant rate"},

	{"duration_time", nil, "", Tool, 0, 0, "wall-clock time of the run, in ns"},
	{"user_time", nil, "", Tool, 0, 0, "user CPU time of the workload, in ns"},
	{"system_time", nil, "", Tool, 0, 0, "system CPU time of the workload, in ns"},
}

// Symbols lists the software, hardware and tool events (not the cache events: CacheNames).
func Symbols() []Symbol { return append([]Symbol(nil), symbols...) }

// LookupSymbol finds a symbolic event by any spelling, ignoring case (perf is case-sensitive
// here; accepting more is harmless as no two names differ only in case). Generic cache names
// in any of perf's forms (l1d-loads-misses) are found too, under their canonical Name.
func LookupSymbol(name string) (Symbol, bool) {
	for _, s := range symbols {
		for _, n := range s.Spellings() {
			if strings.EqualFold(n, name) {
				return s, true
			}
		}
	}
	if c, ok, badOp := parseCache(name); ok && !badOp {
		return Symbol{Name: c.name(), Class: Cache, Type: pe.TypeHWCache, Config: c.config()}, true
	}
	return Symbol{}, false
}

// SymbolOf finds the software, hardware or cache event of a perf_event_attr type and config.
func SymbolOf(typ uint32, config uint64) (Symbol, bool) {
	for _, s := range symbols {
		if s.Class != Tool && s.Type == typ && s.Config == config {
			return s, true
		}
	}
	if typ == pe.TypeHWCache {
		c := cacheEvent{typ: config & 0xff, op: config >> 8 & 0xff, result: config >> 16 & 0xff}
		if config>>24 == 0 && c.typ < uint64(len(cacheTypes)) && c.op < uint64(len(cacheOps)) &&
			c.result < uint64(len(cacheResults)) && cacheOpValid[c.typ][c.op] {
			return Symbol{Name: c.name(), Class: Cache, Type: typ, Config: config}, true
		}
	}
	return Symbol{}, false
}

// lookupSymbol finds a software or hardware event (tool events are not counters).
func lookupSymbol(name string) (Symbol, bool) {
	s, ok := LookupSymbol(name)
	if !ok || (s.Class != Software && s.Class != Hardware) {
		return Symbol{}, false
	}
	return s, true
}

// Names lists the Name of every symbol of the given class in table order (CacheNames for the
// cache events).
func Names(k Class) []string {
	if k == Cache {
		return CacheNames()
	}
	var out []string
	for _, s := range symbols {
		if s.Class == k {
			out = append(out, s.Name)
		}
	}
	return out
}

// Hardware cache events (perf's evsel__hw_cache*). The canonical name comes first. perf also
// lists "branches" as a cache type, but its lexer always reads "branches" as the hardware
// event, so "branches-loads" is a syntax error there; pmc leaves it out to match.
var (
	cacheTypes = [][]string{
		pe.CacheL1D:  {"L1-dcache", "l1-d", "l1d", "L1-data"},
		pe.CacheL1I:  {"L1-icache", "l1-i", "l1i", "L1-instruction"},
		pe.CacheLL:   {"LLC", "L2"},
		pe.CacheDTLB: {"dTLB", "d-tlb", "Data-TLB"},
		pe.CacheITLB: {"iTLB", "i-tlb", "Instruction-TLB"},
		pe.CacheBPU:  {"branch", "bpu", "btb", "bpc"},
		pe.CacheNode: {"node"},
	}
	cacheOps = [][]string{
		pe.CacheOpRead:     {"load", "loads", "read"},
		pe.CacheOpWrite:    {"store", "stores", "write"},
		pe.CacheOpPrefetch: {"prefetch", "prefetches", "speculative-read", "speculative-load"},
	}
	cacheResults = [][]string{
		pe.CacheResultAccess: {"refs", "Reference", "ops", "access"},
		pe.CacheResultMiss:   {"misses", "miss"},
	}
	// cacheOpValid is perf's evsel__hw_cache_stat: which ops each cache type supports.
	cacheOpValid = [][]bool{
		pe.CacheL1D:  {true, true, true},
		pe.CacheL1I:  {true, false, true},
		pe.CacheLL:   {true, true, true},
		pe.CacheDTLB: {true, true, true},
		pe.CacheITLB: {true, false, false},
		pe.CacheBPU:  {true, false, false},
		pe.CacheNode: {true, true, true},
	}
)

// cacheEvent is a parsed hardware cache name.
type cacheEvent struct {
	typ, op, result uint64
}

func (c cacheEvent) config() uint64 { return c.typ | c.op<<8 | c.result<<16 }

// name is perf's canonical name: L1-dcache-loads, L1-dcache-load-misses.
func (c cacheEvent) name() string {
	if c.result == pe.CacheResultMiss {
		return cacheTypes[c.typ][0] + "-" + cacheOps[c.op][0] + "-" + cacheResults[c.result][0]
	}
	return cacheTypes[c.typ][0] + "-" + cacheOps[c.op][1]
}

// matchWord finds which alias list (index) word is in, ignoring case; -1 when none.
func matchWord(lists [][]string, word string) int {
	for i, l := range lists {
		for _, n := range l {
			if strings.EqualFold(n, word) {
				return i
			}
		}
	}
	return -1
}

// parseCache parses TYPE[-OPRES[-OPRES]] the way perf 6.1's parse_events_add_cache does: up to
// two op-or-result words, each taken as the op if no op is set yet and it names one, else as the
// result if none is set yet; a word that fits neither slot is ignored (so "L1-dcache-loads-stores"
// is L1-dcache-loads). The op defaults to read and the result to access. ok is false when s is
// not a cache name; badOp is true when the type does not support the op (L1-icache-stores).
func parseCache(s string) (c cacheEvent, ok, badOp bool) {
	typ, rest := matchPrefix(cacheTypes, s)
	if typ < 0 {
		return c, false, false
	}
	c.typ = uint64(typ)
	var words []string
	for rest != "" && len(words) < 2 {
		if rest[0] != '-' {
			return c, false, false
		}
		rest = rest[1:]
		w := rest
		i, r := matchPrefix(append(append([][]string{}, cacheOps...), cacheResults...), rest)
		if i < 0 {
			return c, false, false
		}
		words, rest = append(words, w[:len(w)-len(r)]), r
	}
	if rest != "" {
		return c, false, false
	}
	op, res := -1, -1
	for _, w := range words {
		if op < 0 {
			if op = matchWord(cacheOps, w); op >= 0 {
				if !cacheOpValid[c.typ][op] {
					return c, true, true
				}
				continue
			}
		}
		if res < 0 {
			res = matchWord(cacheResults, w)
		}
	}
	if op < 0 {
		op = int(pe.CacheOpRead)
	}
	if res < 0 {
		res = int(pe.CacheResultAccess)
	}
	c.op, c.result = uint64(op), uint64(res)
	return c, true, false
}

// matchPrefix finds the longest alias (ignoring case) that s starts with and that ends at a '-'
// or at the end of s. It returns the alias list's index and the rest of s, or -1.
func matchPrefix(lists [][]string, s string) (int, string) {
	best, bestLen := -1, 0
	for i, l := range lists {
		for _, n := range l {
			if len(n) > bestLen && len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) &&
				(len(s) == len(n) || s[len(n)] == '-') {
				best, bestLen = i, len(n)
			}
		}
	}
	return best, s[bestLen:]
}

// CacheNames lists the canonical name of every valid generic cache event, in perf's order:
// by cache, then load, store and prefetch, each as access and miss.
func CacheNames() []string {
	var names []string
	for t := range cacheTypes {
		for op := range cacheOps {
			if !cacheOpValid[t][op] {
				continue
			}
			for r := range cacheResults {
				names = append(names, cacheEvent{uint64(t), uint64(op), uint64(r)}.name())
			}
		}
	}
	return names
}

// symbolNames lists every software and hardware name and alias.
func symbolNames() []string {
	var names []string
	for _, s := range symbols {
		if s.Class != Tool {
			names = append(names, s.Spellings()...)
		}
	}
	return names
}

package events

import (
	"strings"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
)

// symbol is a named software or generic hardware event.
type symbol struct {
	names  []string // canonical name first, then perf's aliases
	typ    uint32
	config uint64
}

// symbols are perf 6.1's symbolic event names (tools/perf/util/parse-events.l).
var symbols = []symbol{
	{[]string{"cpu-clock"}, pe.TypeSoftware, pe.SWCPUClock},
	{[]string{"task-clock"}, pe.TypeSoftware, pe.SWTaskClock},
	{[]string{"page-faults", "faults"}, pe.TypeSoftware, pe.SWPageFaults},
	{[]string{"minor-faults"}, pe.TypeSoftware, pe.SWPageFaultsMin},
	{[]string{"major-faults"}, pe.TypeSoftware, pe.SWPageFaultsMaj},
	{[]string{"context-switches", "cs"}, pe.TypeSoftware, pe.SWContextSwitches},
	{[]string{"cpu-migrations", "migrations"}, pe.TypeSoftware, pe.SWCPUMigrations},
	{[]string{"alignment-faults"}, pe.TypeSoftware, pe.SWAlignmentFaults},
	{[]string{"emulation-faults"}, pe.TypeSoftware, pe.SWEmulationFaults},
	{[]string{"dummy"}, pe.TypeSoftware, pe.SWDummy},
	{[]string{"bpf-output"}, pe.TypeSoftware, pe.SWBPFOutput},
	{[]string{"cgroup-switches"}, pe.TypeSoftware, pe.SWCgroupSwitches},

	{[]string{"cycles", "cpu-cycles"}, pe.TypeHardware, pe.HWCPUCycles},
	{[]string{"instructions"}, pe.TypeHardware, pe.HWInstructions},
	{[]string{"cache-references"}, pe.TypeHardware, pe.HWCacheReferences},
	{[]string{"cache-misses"}, pe.TypeHardware, pe.HWCacheMisses},
	{[]string{"branches", "branch-instructions"}, pe.TypeHardware, pe.HWBranchInstructions},
	{[]string{"branch-misses"}, pe.TypeHardware, pe.HWBranchMisses},
	{[]string{"bus-cycles"}, pe.TypeHardware, pe.HWBusCycles},
	{[]string{"stalled-cycles-frontend", "idle-cycles-frontend"}, pe.TypeHardware, pe.HWStalledCyclesFrontend},
	{[]string{"stalled-cycles-backend", "idle-cycles-backend"}, pe.TypeHardware, pe.HWStalledCyclesBackend},
	{[]string{"ref-cycles"}, pe.TypeHardware, pe.HWRefCPUCycles},
}

// lookupSymbol finds a software or hardware event by name, ignoring case (perf is
// case-sensitive here; accepting more is harmless as no two names differ only in case).
func lookupSymbol(name string) (symbol, bool) {
	for _, s := range symbols {
		for _, n := range s.names {
			if strings.EqualFold(n, name) {
				return s, true
			}
		}
	}
	return symbol{}, false
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

// cacheNames lists the canonical names of every valid cache event, for suggestions.
func cacheNames() []string {
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
		names = append(names, s.names...)
	}
	return names
}

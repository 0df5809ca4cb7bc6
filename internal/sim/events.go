package sim

import (
	"fmt"
	"strconv"
	"strings"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
)

// Counters are the cachegrind counters whose sum is the event, or why it cannot be
// simulated. Cachegrind counts user space only; the LL counts are of its last-level cache.
func Counters(a pe.Attr) ([]string, string) {
	switch a.Type {
	case pe.TypeHardware:
		switch a.Config {
		case pe.HWInstructions:
			return []string{"Ir"}, ""
		case pe.HWCacheReferences:
			return []string{"I1mr", "D1mr", "D1mw"}, ""
		case pe.HWCacheMisses:
			return []string{"ILmr", "DLmr", "DLmw"}, ""
		case pe.HWBranchInstructions:
			return []string{"Bc", "Bi"}, ""
		case pe.HWBranchMisses:
			return []string{"Bcm", "Bim"}, ""
		}
		return nil, "cachegrind simulates no timing (cycles, stalls): it counts instructions, cache accesses and branches"
	case pe.TypeHWCache:
		cache, op, res := a.Config&0xff, a.Config>>8&0xff, a.Config>>16&0xff
		miss := res == pe.CacheResultMiss
		key := fmt.Sprintf("%d/%d", cache, op)
		table := map[string][2][]string{ // access, miss
			fmt.Sprintf("%d/%d", pe.CacheL1D, pe.CacheOpRead):  {{"Dr"}, {"D1mr"}},
			fmt.Sprintf("%d/%d", pe.CacheL1D, pe.CacheOpWrite): {{"Dw"}, {"D1mw"}},
			fmt.Sprintf("%d/%d", pe.CacheL1I, pe.CacheOpRead):  {{"Ir"}, {"I1mr"}},
			fmt.Sprintf("%d/%d", pe.CacheLL, pe.CacheOpRead):   {{"I1mr", "D1mr"}, {"ILmr", "DLmr"}},
			fmt.Sprintf("%d/%d", pe.CacheLL, pe.CacheOpWrite):  {{"D1mw"}, {"DLmw"}},
			fmt.Sprintf("%d/%d", pe.CacheBPU, pe.CacheOpRead):  {{"Bc", "Bi"}, {"Bcm", "Bim"}},
		}
		if c, ok := table[key]; ok && (res == pe.CacheResultAccess || miss) {
			if miss {
				return c[1], ""
			}
			return c[0], ""
		}
		switch cache {
		case pe.CacheDTLB, pe.CacheITLB:
			return nil, "cachegrind simulates no TLB"
		}
		return nil, "cachegrind simulates no such cache operation (prefetches, nodes)"
	case pe.TypeSoftware:
		return nil, "a software event under valgrind would count the simulator, not the workload"
	}
	return nil, "cachegrind simulates only generic hardware and cache events, not raw or PMU-specific ones"
}

// ParseOutput pairs the names of a cachegrind output file's "events:" line with the values
// of its "summary:" line.
func ParseOutput(data []byte) (map[string]uint64, error) {
	var names, values []string
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "events:"); ok {
			names = strings.Fields(rest)
		}
		if rest, ok := strings.CutPrefix(line, "summary:"); ok {
			values = strings.Fields(rest)
		}
	}
	if len(names) == 0 || len(names) != len(values) {
		return nil, fmt.Errorf("cachegrind output: events %d and summary %d do not pair up", len(names), len(values))
	}
	m := make(map[string]uint64, len(names))
	for i, n := range names {
		v, err := strconv.ParseUint(values[i], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cachegrind output: summary value %q: not a count", values[i])
		}
		m[n] = v
	}
	return m, nil
}

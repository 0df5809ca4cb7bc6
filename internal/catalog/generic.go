package catalog

// HardwareNames are perf's generic hardware events (PERF_TYPE_HARDWARE), canonical spelling,
// in the kernel's PERF_COUNT_HW_* order.
var HardwareNames = []string{
	"cpu-cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branch-misses", "bus-cycles",
	"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
}

// cacheOps lists the cache/op/result combinations perf accepts (PERF_TYPE_HW_CACHE):
// the instruction side has no stores, iTLB and branch only loads.
var cacheOps = []struct {
	unit string
	ops  []string
}{
	{"L1-dcache", []string{"loads", "load-misses", "stores", "store-misses", "prefetches", "prefetch-misses"}},
	{"L1-icache", []string{"loads", "load-misses", "prefetches", "prefetch-misses"}},
	{"LLC", []string{"loads", "load-misses", "stores", "store-misses", "prefetches", "prefetch-misses"}},
	{"dTLB", []string{"loads", "load-misses", "stores", "store-misses", "prefetches", "prefetch-misses"}},
	{"iTLB", []string{"loads", "load-misses"}},
	{"branch", []string{"loads", "load-misses"}},
	{"node", []string{"loads", "load-misses", "stores", "store-misses", "prefetches", "prefetch-misses"}},
}

// CacheNames are perf's generic cache events, canonical spelling.
var CacheNames = func() []string {
	var out []string
	for _, c := range cacheOps {
		for _, op := range c.ops {
			out = append(out, c.unit+"-"+op)
		}
	}
	return out
}()

// genericAliases maps perf's alternative spellings to the canonical name.
var genericAliases = map[string]string{
	"cycles":               "cpu-cycles",
	"branches":             "branch-instructions",
	"idle-cycles-frontend": "stalled-cycles-frontend",
	"idle-cycles-backend":  "stalled-cycles-backend",
	"l1-icode-load-misses": "L1-icache-load-misses", // spelled so in the Cortex-A7 tutorial (seed 000)
}

var genericCanon = func() map[string]string {
	m := map[string]string{}
	for _, n := range HardwareNames {
		m[foldName(n)] = n
	}
	for _, n := range CacheNames {
		m[foldName(n)] = n
	}
	for a, n := range genericAliases {
		m[foldName(a)] = n
	}
	return m
}()

// CanonicalGeneric returns the canonical spelling of a generic perf event name
// ("cycles" -> "cpu-cycles") and whether name is one.
func CanonicalGeneric(name string) (string, bool) {
	n, ok := genericCanon[foldName(name)]
	return n, ok
}

// GenericKind is "hardware" or "cache" for a canonical generic name, "" otherwise.
func GenericKind(canon string) string {
	for _, n := range HardwareNames {
		if n == canon {
			return "hardware"
		}
	}
	for _, n := range CacheNames {
		if n == canon {
			return "cache"
		}
	}
	return ""
}

package mem

import "github.com/pmc-tools/pmc/internal/result"

// SchemaVersion names the JSON document `pmc mem --json` writes (docs/json-schema.md,
// section "pmc mem"). Adding a field keeps v1; renaming, removing or changing the meaning of
// one makes v2.
const SchemaVersion = "pmc.mem/v1"

// Result is everything one `pmc mem` run measured; the text and JSON outputs are both written
// from it.
type Result struct {
	Schema         string   `json:"schema"`
	Arch           string   `json:"arch"`  // GOARCH
	Order          Order    `json:"order"` // random or sequential
	LineBytes      int      `json:"line_bytes"`
	HopsPerSize    int      `json:"hops_per_size"`    // timed hops per size, over all blocks
	Blocks         int      `json:"blocks"`           // the timed hops are split into this many blocks
	Passes         int      `json:"passes"`           // sweeps over all sizes, sharing out the blocks
	SamplesPerSize int      `json:"samples_per_size"` // single-hop samples per size
	Clock          Clock    `json:"clock"`
	Caches         []Cache  `json:"caches,omitempty"` // sysfs, cpu 0; empty when sysfs has none
	Pages          *Pages   `json:"pages,omitempty"`  // the list's pages; absent in older files
	Points         []Point  `json:"points"`
	Tiers          []Tier   `json:"tiers"`
	Steps          []Step   `json:"steps"`
	Notes          []string `json:"notes,omitempty"`
	ElapsedSec     float64  `json:"elapsed_sec"`
	// Interrupted: the sweep was stopped (Ctrl-C, SIGTERM...) after the sizes in points.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Point is the measurement at one working-set size.
type Point struct {
	SizeBytes int64 `json:"size_bytes"`
	Lines     int   `json:"lines"` // list nodes, one per line
	// NS is the latency per hop: the minimum over the blocks of block time / hops (the block
	// least disturbed by other tasks). NSMedian is the median over the blocks.
	NS       float64 `json:"ns"`
	NSMedian float64 `json:"ns_median"`
	// Cycles is NS in core cycles: counted by the PMU (the same fastest block) or NS * GHz
	// when calibrated (Clock.Cycles says which); omitted when unknown.
	Cycles  float64      `json:"cycles,omitempty"`
	Samples SampleStats  `json:"samples"`
	Hist    []Bin        `json:"histogram"`
	Events  []EventCount `json:"events,omitempty"`

	blockNS []float64 // one pass's block times, merged by Run
	ticks   []uint64  // one pass's single-hop samples, merged by Run
	raw     []float64 // every single-hop sample in Samples.Unit, in the order taken
}

// SampleStats summarises the single-hop samples of one size, in Unit, bias included.
type SampleStats struct {
	Count  int     `json:"count"`
	Unit   string  `json:"unit"` // "cycles" or "ns"
	Min    float64 `json:"min"`
	P10    float64 `json:"p10"`
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Max    float64 `json:"max"`
	Bias   float64 `json:"bias"` // the empty-interval median in the same unit
	// Resolution is the clock's step in the same unit: a sample cannot tell apart times
	// closer than this.
	Resolution float64 `json:"resolution"`
}

// Bin is one histogram row: samples with Low <= value < Low+Width (Width 1 for integer values;
// the last row may be an overflow row with Over set, holding everything above).
type Bin struct {
	Low   float64 `json:"low"`
	Width float64 `json:"width"`
	Count int     `json:"count"`
	Over  bool    `json:"over,omitempty"`
}

// EventCount is one hardware or software event counted over the fastest block, per hop.
type EventCount struct {
	Name   string        `json:"name"`
	Status result.Status `json:"status"` // "counted", "not-counted" or "not-supported", as pmc stat's

	PerHop float64 `json:"per_hop"`
	Error  string  `json:"error,omitempty"`
}

// Tier is a run of sizes with about the same latency: one level of the hierarchy.
type Tier struct {
	FromBytes int64   `json:"from_bytes"` // first size of the plateau
	ToBytes   int64   `json:"to_bytes"`   // last size of the plateau
	Points    int     `json:"points"`
	NS        float64 `json:"ns"` // median latency of the plateau's sizes
	Cycles    float64 `json:"cycles,omitempty"`
	// Level is the level of the hierarchy the tier is taken to be: "L1", "L2", "L3", "DRAM"
	// (walking the steps; see Detect), with "+TLB" after a step of kind "tlb".
	Level string `json:"level"`
	// Fits is the smallest data cache (sysfs) that holds ToBytes, "DRAM" beyond the largest,
	// "" when sysfs describes no caches.
	Fits string `json:"fits,omitempty"`
}

// Step is a rise in latency between two consecutive tiers.
type Step struct {
	// AfterBytes is the last size at the lower latency, AtBytes the first at the higher one:
	// the capacity that ran out lies between them.
	AfterBytes int64   `json:"after_bytes"`
	AtBytes    int64   `json:"at_bytes"`
	FromNS     float64 `json:"from_ns"`
	ToNS       float64 `json:"to_ns"`
	Ratio      float64 `json:"ratio"`
	// Cache is the sysfs cache whose capacity lies in [AfterBytes, AtBytes) ("L1d"), ""
	// when none does (a TLB reach, a replacement effect, or sysfs has no caches).
	Cache      string `json:"cache,omitempty"`
	CacheBytes int64  `json:"cache_bytes,omitempty"`
	// Kind is "cache" (Cache matched), "level" (no match but a rise of 2x or more before the
	// last cache: the next level, with a capacity unlike sysfs) or "tlb" (a smaller rise, or
	// any rise past the last cache: a TLB reach or a replacement effect).
	Kind string `json:"kind"`
}

// Pages says what pages back the list: the request (--pages), the system's THP setting and
// how much of the list the kernel actually put on huge pages.
type Pages struct {
	Request   string `json:"request"`       // "default", "4k" (MADV_NOHUGEPAGE) or "thp" (MADV_HUGEPAGE)
	BaseBytes int    `json:"base_bytes"`    // the kernel's base page size
	THP       string `json:"thp,omitempty"` // /sys/kernel/mm/transparent_hugepage/enabled: always, madvise, never; "" without THP
	ListBytes int64  `json:"list_bytes"`    // the list's mapping (the largest size)
	// HugeBytes is the part of the list's mapping backed by transparent huge pages
	// (AnonHugePages in /proc/self/smaps) after the sweep; HugeError says why it is unknown.
	HugeBytes int64  `json:"huge_bytes"`
	HugeError string `json:"huge_error,omitempty"`
}

// RawSamples returns the point's single-hop samples in Samples.Unit, in the order they were
// taken (nil for a point read back from JSON, which keeps only their summary).
func (p Point) RawSamples() []float64 { return p.raw }

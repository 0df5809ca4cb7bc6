package mem

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// StepPerOctave is the rise in latency per doubling of the working set that counts as a step.
// Between two sizes a factor f apart the threshold is StepPerOctave^log2(f): 1.183 at the
// default sqrt(2) spacing. Cache levels differ by 2-10x; noise after the median filter stays
// under a few %, and the slow climb of DRAM latency with TLB misses (about 1.1x per size
// here) stays inside its tier.
const StepPerOctave = 1.4

// Detect finds the latency tiers of a sweep and the steps between them, and compares each
// step with the sysfs cache sizes.
//
// The latency curve (ns per hop against size) first goes through a 3-point median filter,
// which removes a single disturbed size and keeps the position of every step. Each interval
// between consecutive sizes whose latency rises by more than StepPerOctave (scaled to the
// interval's width) is rising; consecutive rising intervals form one step, and the sizes
// strictly inside a step are transitions (the list partly fits, e.g. 32 KiB on a 32 KiB L1,
// where other data shares the cache). The runs of sizes between steps are the tiers. A step
// spans from the last size of the lower tier to the first size of the upper one; the cache
// whose capacity lies in that range is the one that ran out.
func Detect(points []Point, caches []Cache) ([]Tier, []Step) {
	if len(points) == 0 {
		return nil, nil
	}
	lat := make([]float64, len(points))
	for i, p := range points {
		lat[i] = p.NS
	}
	f := median3(lat)
	rising := make([]bool, len(points)-1)
	for i := range rising {
		width := math.Log2(float64(points[i+1].SizeBytes) / float64(points[i].SizeBytes))
		rising[i] = f[i+1] > f[i]*math.Pow(StepPerOctave, width)
	}
	var groups [][]int
	var cur []int
	for i := range points {
		inStep := i > 0 && i < len(rising) && rising[i-1] && rising[i]
		if inStep {
			continue
		}
		if i > 0 && rising[i-1] && len(cur) > 0 {
			groups = append(groups, cur)
			cur = nil
		}
		cur = append(cur, i)
	}
	groups = append(groups, cur)

	tiers := make([]Tier, 0, len(groups))
	for _, g := range groups {
		tiers = append(tiers, makeTier(points, g))
	}
	data := dataCaches(caches)
	for i := range tiers {
		tiers[i].Fits = fits(tiers[i].ToBytes, data, len(caches) > 0)
	}
	var steps []Step
	used := map[int]bool{}
	for i := 1; i < len(tiers); i++ {
		lo, hi := tiers[i-1], tiers[i]
		s := Step{AfterBytes: lo.ToBytes, AtBytes: hi.FromBytes, FromNS: lo.NS, ToNS: hi.NS,
			Ratio: round3(hi.NS / lo.NS)}
		if k := matchCache(data, s.AfterBytes, s.AtBytes, used); k >= 0 {
			used[k] = true
			s.Cache, s.CacheBytes = data[k].Name(), data[k].SizeBytes
		}
		steps = append(steps, s)
	}
	nameLevels(tiers, steps, data)
	return tiers, steps
}

// MajorStep is the ratio above which a step that matches no sysfs cache is still taken as a
// new level of the hierarchy (a cache whose effective capacity differs from what sysfs says,
// e.g. an L3 shared with other tenants of the host) rather than a TLB-reach step.
const MajorStep = 2.0

// Kinds of step.
const (
	StepCache = "cache" // a sysfs cache's capacity lies in the step's range
	StepLevel = "level" // no cache matches but the rise is major: the next level, capacity unlike sysfs
	StepTLB   = "tlb"   // a minor unmatched rise, or any rise past the last cache: TLB reach or replacement
)

// nameLevels sets each step's kind and labels the tiers L1, L2, ... DRAM by walking the
// steps from the level of the first tier's smallest size: a step matched to a cache, or a major unmatched one, moves to the next level; after
// the last data cache comes DRAM. Any other step keeps the level and adds "+TLB" (a TLB
// reach: past it every hop also walks the page table, as in the seed's Main TLB tier).
// Without sysfs caches the levels are numbered T1, T2... by major steps.
func nameLevels(tiers []Tier, steps []Step, data []Cache) {
	level := 0 // index into data; len(data) means DRAM
	name := func(l int) string {
		if len(data) > 0 && l >= len(data) {
			return "DRAM"
		}
		if l < len(data) {
			return fmt.Sprintf("L%d", data[l].Level)
		}
		return fmt.Sprintf("T%d", l+1)
	}
	// The first tier is the smallest cache that holds its first size (--min may start past
	// L1), DRAM when none does.
	if len(tiers) > 0 {
		for level < len(data) && data[level].SizeBytes < tiers[0].FromBytes {
			level++
		}
		tiers[0].Level = name(level)
	}
	past := func() bool { return len(data) > 0 && level >= len(data) }
	for i := range steps {
		s := &steps[i]
		switch {
		case s.Cache != "":
			s.Kind = StepCache
			for k, c := range data {
				if c.Name() == s.Cache && c.SizeBytes == s.CacheBytes {
					level = k + 1
				}
			}
			tiers[i+1].Level = name(level)
		case s.Ratio >= MajorStep && !past():
			s.Kind = StepLevel
			level++
			tiers[i+1].Level = name(level)
		default:
			s.Kind = StepTLB
			tiers[i+1].Level = strings.TrimSuffix(tiers[i].Level, "+TLB") + "+TLB"
		}
	}
}

func makeTier(points []Point, g []int) Tier {
	ns := make([]float64, len(g))
	cyc := make([]float64, 0, len(g))
	for j, i := range g {
		ns[j] = points[i].NS
		if points[i].Cycles > 0 {
			cyc = append(cyc, points[i].Cycles)
		}
	}
	t := Tier{FromBytes: points[g[0]].SizeBytes, ToBytes: points[g[len(g)-1]].SizeBytes, Points: len(g),
		NS: round3(median(ns))}
	if len(cyc) == len(g) {
		t.Cycles = round3(median(cyc))
	}
	return t
}

// median3 is the 3-point running median; the two end points are kept as they are.
func median3(xs []float64) []float64 {
	out := slices.Clone(xs)
	for i := 1; i+1 < len(xs); i++ {
		w := []float64{xs[i-1], xs[i], xs[i+1]}
		slices.Sort(w)
		out[i] = w[1]
	}
	return out
}

// dataCaches are the caches loads can hit in, smallest first.
func dataCaches(caches []Cache) []Cache {
	var out []Cache
	for _, c := range caches {
		if c.HoldsData() {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Cache) int {
		if a.SizeBytes != b.SizeBytes {
			return int(math.Copysign(1, float64(a.SizeBytes-b.SizeBytes)))
		}
		return a.Level - b.Level
	})
	return out
}

// fits names the smallest data cache that holds size bytes, "DRAM" when none does.
func fits(size int64, data []Cache, known bool) string {
	if !known {
		return ""
	}
	for _, c := range data {
		if size <= c.SizeBytes {
			return c.Name()
		}
	}
	return "DRAM"
}

// matchCache returns the index of the unused data cache whose capacity lies in
// [after, at), the one nearest the middle (geometrically) when several do, or -1.
func matchCache(data []Cache, after, at int64, used map[int]bool) int {
	best, bestD := -1, math.Inf(1)
	mid := math.Sqrt(float64(after) * float64(at))
	for k, c := range data {
		if used[k] || c.SizeBytes < after || c.SizeBytes >= at {
			continue
		}
		if d := math.Abs(math.Log(float64(c.SizeBytes) / mid)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

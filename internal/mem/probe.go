package mem

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Config is a validated `pmc mem` request.
type Config struct {
	Min, Max       int64 // working-set sizes, bytes
	StepsPerOctave int   // sizes per doubling: 1, 2 (sqrt 2 apart), 4...
	Hops           int   // timed hops per size
	Blocks         int   // the timed hops are split into this many blocks; the fastest counts
	// Passes sweeps all sizes this many times, each pass timing Blocks/Passes blocks of every
	// size, so that a busy moment of the machine hits one pass of a size, not all its blocks.
	Passes  int
	Samples int // single-hop samples per size
	Order   Order
	Events  []EventSpec // counted per size on the probing thread; may be empty
	// PerfUserAccess is /proc/sys/kernel/perf_user_access (host), Known false when the
	// file is missing: on arm64 it decides whether the cycle counter times single hops.
	PerfUserAccess      string
	PerfUserAccessKnown bool
	// Pages is the page size asked for the list: PagesDefault, Pages4K or PagesTHP.
	Pages string
	// THPMode is the system's THP setting (host.THPMode), reported beside the pages.
	THPMode string
	// AnonHuge, when set, reads how many bytes of the mapping containing addr are backed
	// by huge pages (host.AnonHugeBytes); it is asked once the list is fully touched.
	AnonHuge func(addr uint64) (int64, error)
	// Tick, when set, is called before each size of each pass (progress on long sweeps).
	Tick func(pass, passes, k, sizes int, size int64)
	// Start, when set, is called once the clock is calibrated, before the first size.
	Start func(*Result)
	// Progress, when set, is called after each size with its point.
	Progress func(Point)
	// Stop, when set, is asked before each size: true ends the sweep early (Ctrl-C) with
	// the sizes measured so far, and the result says it was interrupted.
	Stop func() bool
}

// Limits of the flags.
const (
	MinSize = 2 * LineBytes
	MaxSize = 16 << 30
)

// Default is the configuration of a plain `pmc mem`: 4 KiB to 256 MiB, sqrt(2) apart.
func Default() Config {
	return Config{Min: 4 << 10, Max: 256 << 20, StepsPerOctave: 2, Hops: 1 << 19, Blocks: 18, Passes: 6,
		Samples: 1000, Order: Random, Pages: PagesDefault}
}

// Validate checks c and names the flag to fix.
func (c Config) Validate() error {
	switch {
	case c.Min < MinSize:
		return fmt.Errorf("--min %d: the smallest list is %d bytes (2 lines)", c.Min, MinSize)
	case c.Max > MaxSize:
		return fmt.Errorf("--max %s: larger than %s", FormatSize(c.Max), FormatSize(MaxSize))
	case c.Max < c.Min:
		return fmt.Errorf("--max %s is below --min %s", FormatSize(c.Max), FormatSize(c.Min))
	case c.StepsPerOctave < 1 || c.StepsPerOctave > 16:
		return fmt.Errorf("--steps-per-octave %d: want 1..16", c.StepsPerOctave)
	case c.Blocks < 1 || c.Blocks > 1000:
		return fmt.Errorf("--blocks %d: want 1..1000", c.Blocks)
	case c.Passes < 1 || c.Passes > c.Blocks:
		return fmt.Errorf("--passes %d: want 1..--blocks (%d)", c.Passes, c.Blocks)
	case c.Hops < c.Blocks || c.Hops > 1<<30:
		return fmt.Errorf("--hops %d: want %d..2^30 (at least one per block)", c.Hops, c.Blocks)
	case c.Samples < 0 || c.Samples > 1<<20:
		return fmt.Errorf("--samples %d: want 0..1048576", c.Samples)
	}
	if _, err := ParsePages(c.Pages); err != nil {
		return err
	}
	_, err := ParseOrder(string(c.Order))
	return err
}

// MemoryNeeded is about how much memory Run allocates for c: the list at the largest size
// and the permutations of every size, kept between passes (about max/8 in all).
func (c Config) MemoryNeeded() int64 { return c.Max + c.Max/8 + 64<<20 }

// Sizes lists the working-set sizes of a sweep: min * 2^(k/steps) up to max, each rounded
// down to whole lines, duplicates dropped.
func Sizes(min, max int64, steps int) []int64 {
	var out []int64
	for k := 0; ; k++ {
		s := int64(float64(min) * math.Pow(2, float64(k)/float64(steps)))
		s -= s % LineBytes
		if s > max {
			break
		}
		if len(out) == 0 || s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}

// Run sweeps the sizes on the calling goroutine's thread (locked for the duration, with the
// garbage collector off) and returns the measurements with tiers and steps detected.
func Run(c Config, caches []Cache) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	res := &Result{Schema: SchemaVersion, Arch: runtime.GOARCH, Order: c.Order, LineBytes: LineBytes,
		HopsPerSize: c.Hops, Blocks: c.Blocks, Passes: c.Passes, SamplesPerSize: c.Samples, Caches: caches}
	cs, notes := openCounters(c.Events)
	defer cs.close()
	res.Notes = append(res.Notes, notes...)

	tm := clockTimer()
	facts := TimerFacts{Arch: runtime.GOARCH, Instr: unix.CycleCounterArch,
		PerfUserAccess: c.PerfUserAccess, PerfUserAccessKnown: c.PerfUserAccessKnown}
	if cs.cyclesErr != nil {
		facts.CyclesErr = cs.cyclesErr.Error()
	} else if cs.page == nil {
		facts.CyclesErr = "its perf page could not be mapped"
	}
	pageFacts(&facts, cs.page)
	useCycles, note := ChooseTimer(facts)
	if useCycles {
		tm = cycleTimer(cs.page)
		res.Clock = Clock{Ticks: tm.name, TickNS: cycleTickNS(cs, 30*time.Millisecond), Cycles: "none"}
	} else {
		res.Clock = Clock{Ticks: tm.name, TicksNote: note, TickNS: calibrateTicks(30 * time.Millisecond), Cycles: "none"}
	}
	res.Clock.BiasTicks, res.Clock.ResolutionTicks = measureBias(tm, 1001)
	if cs.cycles >= 0 {
		res.Clock.Cycles = "pmu"
	} else if ghz, seen := pinClock(func() float64 { return calibrateGHz(15) }, 5); ghz > 0 {
		res.Clock.Cycles, res.Clock.GHz, res.Clock.Calibrations = "calibrated", ghz, seen
		res.Notes = append(res.Notes, fmt.Sprintf("no cycle counter: cycles are ns x %.3f GHz, the core clock "+
			"measured with a chain of dependent adds", ghz))
	} else if len(seen) > 0 {
		res.Clock.Calibrations = seen
		res.Notes = append(res.Notes, fmt.Sprintf("no cycle counter, and the core clock could not be pinned down "+
			"(%s GHz in %d rounds, none two in a row within %.1f%%: the machine is busy or changes its clock): "+
			"latencies in ns only", joinGHz(seen), len(seen), 100*CalibrationTolerance))
	} else {
		res.Notes = append(res.Notes, "no cycle counter and no clock calibration on "+runtime.GOARCH+": latencies in ns only")
	}

	sizes := Sizes(c.Min, c.Max, c.StepsPerOctave)
	maxLines := int(sizes[len(sizes)-1] / LineBytes)
	buf, addr, free, err := allocate(maxLines*stride, c.Pages)
	if err != nil {
		return nil, err
	}
	defer free()
	res.Pages = &Pages{Request: c.Pages, BaseBytes: unix.PageSize(), THP: c.THPMode, ListBytes: int64(len(buf)) * 4}
	if c.Start != nil {
		c.Start(res)
	}
	perms := make([][]uint32, len(sizes)) // kept for the later passes: about size/8 bytes in all
	res.Points = make([]Point, len(sizes))
	blocks := make([][]float64, len(sizes))
	samples := make([][]uint64, len(sizes))
	measured, finished := 0, make([]bool, len(sizes))
sweep:
	for pass := range c.Passes {
		// Blocks and samples are shared out over the passes; the last pass takes the rest.
		nb, ns := c.Blocks/c.Passes, c.Samples/c.Passes
		if pass == c.Passes-1 {
			nb, ns = c.Blocks-nb*(c.Passes-1), c.Samples-ns*(c.Passes-1)
		}
		for k, size := range sizes {
			if c.Stop != nil && c.Stop() {
				res.Interrupted = true
				break sweep
			}
			if c.Tick != nil {
				c.Tick(pass, c.Passes, k, len(sizes), size)
			}
			lines := int(size / LineBytes)
			if perms[k] == nil {
				perms[k] = Cycle(nil, lines, c.Order)
			}
			link(buf, perms[k])
			if pass == c.Passes-1 {
				perms[k] = nil
			}
			tick := make([]uint64, ns)
			p := measure(buf, lines, c.Hops/c.Blocks, nb, cs, tm, tick)
			tick = p.ticks
			p.ticks = nil
			samples[k] = append(samples[k], tick...)
			blocks[k] = append(blocks[k], p.blockNS...)
			if pass == 0 || p.NS < res.Points[k].NS {
				p.SizeBytes = size
				p.blockNS = nil
				res.Points[k] = p
			}
			if pass == 0 {
				measured = k + 1
			}
			if pass < c.Passes-1 {
				continue
			}
			q := &res.Points[k]
			q.NSMedian = median(blocks[k])
			finishPoint(q, samples[k], res.Clock)
			finished[k] = true
			if c.Progress != nil {
				c.Progress(*q)
			}
		}
	}
	if res.Interrupted {
		// Keep every size measured at least once, from the blocks it got.
		res.Points = res.Points[:measured]
		for k := range res.Points {
			if !finished[k] {
				q := &res.Points[k]
				q.NSMedian = median(blocks[k])
				finishPoint(q, samples[k], res.Clock)
			}
		}
	}
	if c.AnonHuge != nil {
		if n, err := c.AnonHuge(uint64(addr)); err == nil {
			res.Pages.HugeBytes = n
		} else {
			res.Pages.HugeError = err.Error()
		}
	}
	if res.Clock.Cycles == "calibrated" {
		// The clock may have moved during the sweep (load, frequency scaling): say so.
		res.Clock.GHzEnd = calibrateGHz(15)
		if end := res.Clock.GHzEnd; end > 0 && !agree(end, res.Clock.GHz) {
			res.Notes = append(res.Notes, fmt.Sprintf("the core clock measured %.3f GHz after the sweep, %.3f before it: "+
				"the calibrated cycles may be off by up to %.0f%%", end, res.Clock.GHz, 100*math.Abs(end-res.Clock.GHz)/res.Clock.GHz))
		}
	}
	res.Tiers, res.Steps = Detect(res.Points, caches)
	if res.Steps == nil {
		res.Steps = []Step{} // "steps": [] in JSON, not null
	}
	res.ElapsedSec = time.Since(start).Seconds()
	return res, nil
}

// Page sizes of the list (--pages).
const (
	PagesDefault = "default" // whatever the system's THP setting gives
	Pages4K      = "4k"      // base pages: madvise(MADV_NOHUGEPAGE)
	PagesTHP     = "thp"     // transparent huge pages: madvise(MADV_HUGEPAGE)
)

// ParsePages validates a --pages value.
func ParsePages(s string) (string, error) {
	switch s {
	case PagesDefault, Pages4K, PagesTHP:
		return s, nil
	}
	return "", fmt.Errorf("--pages %q: want default, 4k (base pages) or thp (transparent huge pages)", s)
}

// allocate maps the list buffer outside the Go heap with the page size asked for, before
// the first touch.
func allocate(words int, pages string) (buf []uint32, addr uintptr, free func() error, err error) {
	advice := 0
	switch pages {
	case Pages4K:
		advice = unix.MADV_NOHUGEPAGE
	case PagesTHP:
		advice = unix.MADV_HUGEPAGE
	}
	buf, addr, free, err = unix.MapWords(words, advice)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("cannot map %s for the list (--pages %s): %v; lower --max", FormatSize(int64(words)*4), pages, err)
	}
	return buf, addr, free, nil
}

// measure chases the linked list of lines: a warm-up, nb timed blocks of per hops, then the
// single-hop samples (left in samples, in ticks). The point holds the fastest block.
func measure(buf []uint32, lines, per, nb int, cs *counterSet, tm timer, samples []uint64) Point {
	p := Point{Lines: lines}
	i := chase(buf, 0, min(lines, max(per, 1<<16))) // warm the caches and TLBs the list fits in
	p.blockNS = make([]float64, nb)
	var best []blockCount
	bestNS := math.Inf(1)
	for b := range p.blockNS {
		before := cs.read()
		t0 := time.Now()
		i = chase(buf, i, per)
		d := time.Since(t0)
		after := cs.read()
		p.blockNS[b] = float64(d.Nanoseconds()) / float64(per)
		if p.blockNS[b] < bestNS {
			bestNS, best = p.blockNS[b], diff(before, after)
		}
	}
	p.NS = bestNS
	p.Events = cs.perHop(best, per)
	if cs.cycles >= 0 && best[cs.cycles].ok() {
		p.Cycles = best[cs.cycles].value / float64(per)
	}
	// One timed hop every `gap` hops: once per traversal for lists up to 256 lines, as the
	// seed did, and every 256 hops beyond, to bound the run time of large lists.
	// A sample the timer could not take (the counter was not on the CPU) is retried after
	// another gap, a few times at most.
	gap := min(lines, 256) - 1
	n, misses := 0, 0
	for n < len(samples) && misses < 8*len(samples)+8 {
		i = chase(buf, i, gap)
		next, t, ok := tm.hop(&buf[0], i)
		i = next
		if !ok {
			misses++
			i = chase(buf, i, 1)
			continue
		}
		samples[n] = t
		n++
	}
	p.ticks = samples[:n]
	sink += i
	return p
}

// finishPoint converts the samples from ticks to cycles (TSC with a calibrated core clock)
// or ns, fills calibrated cycles, and builds the histogram.
func finishPoint(p *Point, ticks []uint64, clk Clock) {
	unit, scale := sampleScale(clk)
	if clk.Cycles == "calibrated" {
		p.Cycles = p.NS * clk.GHz
	}
	xs := make([]float64, len(ticks))
	for j, t := range ticks {
		xs[j] = float64(t) * scale
	}
	p.raw = slices.Clone(xs)
	p.Samples = Stats(xs, unit, clk.BiasTicks*scale)
	p.Samples.Resolution = round1(clk.ResolutionTicks * scale)
	p.Hist = Histogram(xs, 20, clk.ResolutionTicks*scale)
}

// sampleScale is the unit single-hop samples are reported in and the factor from ticks:
// cycles when the TSC times them and the core clock is known, else ns.
func sampleScale(clk Clock) (unit string, scale float64) {
	if isCycleTimer(clk.Ticks) {
		return "cycles", 1
	}
	if clk.Ticks == "tsc" && clk.GHz > 0 {
		return "cycles", clk.TickNS * clk.GHz
	}
	return "ns", clk.TickNS
}

// Stats summarises samples (sorted in place).
func Stats(xs []float64, unit string, bias float64) SampleStats {
	s := SampleStats{Count: len(xs), Unit: unit, Bias: round1(bias)}
	if len(xs) == 0 {
		return s
	}
	slices.Sort(xs)
	s.Min, s.Max = round1(xs[0]), round1(xs[len(xs)-1])
	s.P10, s.Median, s.P90 = round1(quantile(xs, 0.1)), round1(quantile(xs, 0.5)), round1(quantile(xs, 0.9))
	return s
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// joinGHz lists clock measurements as "3.230, 1.240".
func joinGHz(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 3, 64)
	}
	return strings.Join(parts, ", ")
}

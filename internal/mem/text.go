package mem

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// WriteHeader prints what the run is about to measure and how, before the rows.
func WriteHeader(w io.Writer, r *Result) {
	fmt.Fprintf(w, "pmc mem: pointer chasing, %s order, one node per %d-byte line, %d timed hops per size "+
		"(fastest of %d blocks over %d passes), %d single-hop samples per size\n",
		r.Order, r.LineBytes, r.HopsPerSize, r.Blocks, r.Passes, r.SamplesPerSize)
	fmt.Fprintf(w, "clock: %s\n", describeClock(r.Clock))
	if r.Clock.TicksNote != "" {
		fmt.Fprintf(w, "timer: %s, not the cycle counter: %s\n", r.Clock.Ticks, r.Clock.TicksNote)
	}
	if len(r.Caches) > 0 {
		var cs []string
		for _, c := range r.Caches {
			s := c.Name() + " " + FormatSize(c.SizeBytes)
			if c.Ways > 0 {
				s += fmt.Sprintf(" %d-way", c.Ways)
			}
			cs = append(cs, s)
		}
		fmt.Fprintf(w, "caches (sysfs, cpu0): %s\n", strings.Join(cs, ", "))
	} else {
		fmt.Fprintln(w, "caches: sysfs describes none on this machine; tiers are not named")
	}
	if r.Pages != nil {
		fmt.Fprintf(w, "pages: %s\n", describePages(r.Pages))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%10s %9s %9s %11s  %-s\n", "size", "ns/hop", "(median)", cycles(r.Clock), "one-hop samples "+sampleUnit(r))
}

func describeClock(c Clock) string {
	var s string
	if isCycleTimer(c.Ticks) {
		instr := "RDPMC"
		if c.Ticks == TimerPmccntr {
			instr = "MRS PMCCNTR_EL0"
		}
		s = fmt.Sprintf("single hops timed with the cycle counter read from user space (%s, no system call", instr)
		if c.TickNS > 0 {
			s += fmt.Sprintf("; %.3f GHz", 1/c.TickNS)
		}
		s += ")"
	} else if c.Ticks == "tsc" {
		s = fmt.Sprintf("single hops timed with the TSC (%.3f GHz", 1/c.TickNS)
		if c.ResolutionTicks > 1.5 {
			s += fmt.Sprintf(", advancing in steps of %.1f ns: single hops faster than that are not resolved", c.ResolutionTicks*c.TickNS)
		}
		s += ")"
	} else {
		s = "single hops timed with the monotonic clock (ns; its own cost is the bias)"
	}
	switch c.Cycles {
	case "pmu":
		s += "; cycles counted by the hardware cycles event"
	case "calibrated":
		s += fmt.Sprintf("; cycles = ns x %.3f GHz core clock (calibrated, NOT counted: no hardware PMU)", c.GHz)
	default:
		if len(c.Calibrations) > 0 {
			s += "; no cycle counter, and the core clock could not be pinned down: ns only"
		} else {
			s += "; no cycle counter or calibration: ns only"
		}
	}
	return s
}

func cycles(c Clock) string {
	if c.Cycles == "none" {
		return ""
	}
	return "cycles/hop"
}

func sampleUnit(r *Result) string {
	unit, scale := sampleScale(r.Clock)
	return fmt.Sprintf("(%s, bias %.1f): p10 median p90", unit, r.Clock.BiasTicks*scale)
}

// WriteRow prints one size's line.
func WriteRow(w io.Writer, p Point) {
	cyc := ""
	if p.Cycles > 0 {
		cyc = fmt.Sprintf("%.1f", p.Cycles)
	}
	fmt.Fprintf(w, "%10s %9.2f %9.2f %11s  %7.1f %7.1f %7.1f", FormatSize(p.SizeBytes), p.NS, p.NSMedian, cyc,
		p.Samples.P10, p.Samples.Median, p.Samples.P90)
	for _, e := range p.Events {
		if e.Status == result.Counted {
			fmt.Fprintf(w, "  %s=%.3f/hop", e.Name, e.PerHop)
		} else {
			fmt.Fprintf(w, "  %s=<%s>", e.Name, e.Status)
		}
	}
	fmt.Fprintln(w)
}

// WriteSummary prints the tiers, the steps compared with sysfs, and histograms: hist is
// "tiers" (one size in the middle of each tier), "all" or "none".
func WriteSummary(w io.Writer, r *Result, hist string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "tiers (runs of sizes with about the same latency; median latency):")
	for _, t := range r.Tiers {
		cyc := ""
		if t.Cycles > 0 {
			cyc = fmt.Sprintf(" %6.1f cycles", t.Cycles)
		}
		fits := ""
		if t.Fits != "" {
			fits = "  (sysfs: fits in " + t.Fits + ")"
		}
		fmt.Fprintf(w, "  %-10s %10s .. %-10s %7.2f ns%s%s\n", t.Level, FormatSize(t.FromBytes), FormatSize(t.ToBytes), t.NS, cyc, fits)
	}
	fmt.Fprintln(w, "steps (latency rises between these sizes; sysfs capacity in that range):")
	for _, s := range r.Steps {
		var m string
		switch s.Kind {
		case StepCache:
			m = fmt.Sprintf("%s %s: agrees", s.Cache, FormatSize(s.CacheBytes))
		case StepLevel:
			m = "no sysfs cache size in this range: the next level, its effective capacity unlike sysfs (shared with other cores or tenants?)"
		default:
			m = "no sysfs cache size in this range: TLB reach (page walks) or a replacement effect"
		}
		fmt.Fprintf(w, "  %10s -> %-10s x%.2f (%.2f -> %.2f ns)  %s\n", FormatSize(s.AfterBytes), FormatSize(s.AtBytes),
			s.Ratio, s.FromNS, s.ToNS, m)
	}
	if len(r.Steps) == 0 {
		fmt.Fprintln(w, "  none found")
	}
	if r.Pages != nil {
		fmt.Fprintf(w, "pages: %s\n", pagesUsed(r.Pages))
	}
	show := histSizes(r, hist)
	if len(show) == 0 {
		return
	}
	fmt.Fprintf(w, "\nlatency histograms (one timed hop per traversal, up to one per 256 hops; value, count, bar; bias included):\n")
	for _, p := range r.Points {
		if !show[p.SizeBytes] || len(p.Hist) == 0 {
			continue
		}
		// The seed's estimate: the sampled time minus the bias of the empty timed interval,
		// beside the block average for comparison.
		avg := p.NS
		if p.Samples.Unit == "cycles" {
			avg = p.Cycles
		}
		est := round1(p.Samples.Median - p.Samples.Bias)
		note := ""
		if p.Samples.Resolution > 1.5 && est <= p.Samples.Resolution {
			note = fmt.Sprintf(", not resolved by a clock that steps by %g", p.Samples.Resolution)
		}
		fmt.Fprintf(w, "  %s list: median %g %s - bias %g = %g %s per access (block average %.1f%s)\n",
			FormatSize(p.SizeBytes), p.Samples.Median, p.Samples.Unit, p.Samples.Bias, est, p.Samples.Unit, avg, note)
		WriteHistogram(w, p.Hist, "  ", p.Samples.Resolution)
	}
}

func histSizes(r *Result, mode string) map[int64]bool {
	show := map[int64]bool{}
	switch mode {
	case "all":
		for _, p := range r.Points {
			show[p.SizeBytes] = true
		}
	case "tiers":
		for _, t := range r.Tiers {
			var in []int64
			for _, p := range r.Points {
				if p.SizeBytes >= t.FromBytes && p.SizeBytes <= t.ToBytes {
					in = append(in, p.SizeBytes)
				}
			}
			if len(in) > 0 {
				show[in[len(in)/2]] = true
			}
		}
	}
	return show
}

// describePages says what pages the list asked for, under which system setting.
func describePages(p *Pages) string {
	var s string
	switch p.Request {
	case Pages4K:
		s = fmt.Sprintf("%s base pages asked for (--pages 4k: MADV_NOHUGEPAGE)", FormatSize(int64(p.BaseBytes)))
	case PagesTHP:
		s = "transparent huge pages asked for (--pages thp: MADV_HUGEPAGE)"
	default:
		s = "the system's default (--pages default)"
	}
	if p.THP != "" {
		s += "; THP setting " + p.THP
	} else {
		s += "; the kernel has no transparent huge pages"
	}
	return s
}

// pagesUsed says how much of the list was on huge pages.
func pagesUsed(p *Pages) string {
	if p.HugeError != "" {
		return fmt.Sprintf("unknown how much of the %s list was on huge pages (%s)", FormatSize(p.ListBytes), p.HugeError)
	}
	if p.HugeBytes == 0 {
		return fmt.Sprintf("the %s list was on %s base pages only (AnonHugePages 0)", FormatSize(p.ListBytes), FormatSize(int64(p.BaseBytes)))
	}
	if p.HugeBytes >= p.ListBytes {
		return fmt.Sprintf("all of the %s list on transparent huge pages (AnonHugePages %s)", FormatSize(p.ListBytes), FormatSize(p.HugeBytes))
	}
	return fmt.Sprintf("%s of the %s list on transparent huge pages (AnonHugePages), the rest on %s pages",
		FormatSize(p.HugeBytes), FormatSize(p.ListBytes), FormatSize(int64(p.BaseBytes)))
}

// WriteText prints a whole result as pmc mem prints it while it runs: header, one row per
// size, then the summary (pmc show of a pmc.mem/v1 file prints the same).
func WriteText(w io.Writer, r *Result, hist string) {
	WriteHeader(w, r)
	for _, p := range r.Points {
		WriteRow(w, p)
	}
	WriteSummary(w, r, hist)
}

// WriteSamples writes every single-hop sample as the seed's samples.dat did, one latency per
// line (in samples.unit, bias included), followed by the list's size in bytes, so the seed's
// one-liner (awk '{h[$1]++}...') still reads the first column and awk '$2 == 8192' picks one
// size. A clock coarser than 1.5 units is written in whole steps, as the histogram shows it
// (Snap): one step of the clock is one value, never two.
func WriteSamples(w io.Writer, r *Result) error {
	bw := bufio.NewWriter(w)
	_, scale := sampleScale(r.Clock)
	step := r.Clock.ResolutionTicks * scale
	for _, p := range r.Points {
		for _, x := range p.raw {
			bw.WriteString(strconv.FormatFloat(Snap(x, step), 'f', -1, 64))
			bw.WriteByte(' ')
			bw.WriteString(strconv.FormatInt(p.SizeBytes, 10))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

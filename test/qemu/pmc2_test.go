package qemu

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// rawEvent is an event that must count exactly what a generic event counts.
type rawEvent struct {
	ev   string
	same int // index of the generic event in loop-1000000: 0 instructions:u, 1 cycles:u
}

// rawSets splits the raw/sysfs events of g into sets that fit its general counters.
func rawSets(g Guest) [][]rawEvent {
	p := g.PMU
	all := []rawEvent{{"r08:u", 0}, {"r11:u", 1}, {p + "/inst_retired/u", 0}, {p + "/cpu_cycles/u", 1},
		{"inst_retired:u", 0}, {"cpu_cycles:u", 1}} // sysfs names without the PMU, as perf accepts
	if g.Name == "armv7" {
		// 0xff is the ARMv7 driver's code for the dedicated cycle counter.
		all = append(all, rawEvent{"rff:u", 1})
	}
	var sets [][]rawEvent
	for len(all) > 0 {
		k := min(len(all), g.Counters)
		sets = append(sets, all[:k])
		all = all[k:]
	}
	return sets
}

// inst08 matches a resolution naming the architectural INST_RETIRED event (code 0x08).
var inst08 = regexp.MustCompile(`(?i)inst_retired|\br0*8\b|0x0*8\b`)

// l1dRefill matches a resolution naming L1D_CACHE_REFILL (code 0x03).
var l1dRefill = regexp.MustCompile(`(?i)l1d_cache_refill|\br0*3\b|0x0*3\b`)

// TestPMCRaw: raw codes and the PMU's sysfs event names count exactly what the generic
// events count (so on armv7 the generic names resolve to the ARMv7 codes).
func TestPMCRaw(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			gen := counts(t, g, "loop-1000000", 2)
			for i, set := range rawSets(g) {
				cs := counts(t, g, fmt.Sprintf("raw-%d", i), len(set))
				for k, c := range cs {
					want := gen[set[k].same]
					t.Logf("%s %-28s raw=%d running=%d/%d encoding=%+v", g.Name, c.Event, c.Raw, c.Running, c.Enabled, c.Encoding)
					if !withinSlack(t, g, c.Event, c.Raw, want.Raw) {
						t.Errorf("%s %s = %d, want %d (%s)", g.Name, c.Event, c.Raw, want.Raw, want.Event)
					}
				}
			}
			t.Run("resolved-name", func(t *testing.T) {
				// Result.Encoding.Raw documents what a generic name resolved to on this CPU.
				if e := gen[0].Encoding; !inst08.MatchString(e.Raw) {
					t.Errorf("%s: instructions reported as resolved to %q; want the CPU's code, INST_RETIRED r08", g.Name, e.Raw)
				}
			})
		})
	}
}

// TestPMCMultiplex: more events than counters rotate; each runs part of the time and the
// scaled estimates stay within 0.5% of the exact count, by default (counters inherited by
// children) and with --no-inherit.
//
// Measured with the default: some events report a time_enabled short by whole rotation
// intervals (k x 4 ms), so their estimates are low by up to 3% (arm64) and 10% (armv7);
// with --no-inherit all are within 0.08%. Cause (TestLaunchInherit): the counters are
// attached while the Go shim's runtime is still starting threads, which inherit them; the
// probe's Go launcher shows the same shortfall without a readiness handshake and none with it,
// and perf's method in C (clauncher) shows none. The failure message names the shortfall.
func TestPMCMultiplex(t *testing.T) {
	for _, g := range Guests {
		for _, name := range []string{"mux", "mux-noinherit"} {
			t.Run(g.Name+"/"+name, func(t *testing.T) {
				exact := float64(counts(t, g, "mux-base", 1)[0].Raw)
				if exact < 2*muxN {
					t.Fatalf("%s: base count %v below 2N = %d", g.Name, exact, 2*muxN)
				}
				cs := counts(t, g, name, 8)
				maxEn := maxEnabled(cs)
				worst := 0.0
				for _, c := range cs {
					pct := c.RunningPct()
					errPct := 100 * (c.Scaled - exact) / exact
					worst = math.Max(worst, math.Abs(errPct))
					t.Logf("%s %s raw=%d scaled=%.0f exact=%.0f error=%+.3f%% running=%.2f%% enabled=%d",
						g.Name, c.Event, c.Raw, c.Scaled, exact, errPct, pct, c.Enabled)
					if pct >= 100 || pct <= 0 {
						t.Errorf("%s: %s ran %.1f%% of the time; 8 events on %d counters must multiplex", g.Name, c.Event, pct, g.Counters)
					}
					if math.Abs(errPct) > 0.5 {
						t.Errorf("%s %s: %s scaled %.0f is %+.3f%% off the exact %.0f (want within 0.5%%); its time_enabled is %d ns (%.2f%%) below the other events'",
							g.Name, name, c.Event, c.Scaled, errPct, exact, maxEn-c.Enabled, 100*float64(maxEn-c.Enabled)/float64(maxEn))
					}
				}
				t.Logf("%s %s: worst multiplexing error %.3f%%", g.Name, name, worst)
			})
		}
	}
}

func maxEnabled(cs []result.Count) uint64 {
	var m uint64
	for _, c := range cs {
		m = max(m, c.Enabled)
	}
	return m
}

// TestPMCGroups: a group that cannot fit is reported as not counted (or a clear error),
// never as 0; a group that fits is counted 100% of the time, every member exact: all equal,
// and the loop's count within userSlack.
func TestPMCGroups(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			want := counts(t, g, "loop-1000000", 2)[0].Raw
			fit := counts(t, g, "group-fit", g.Counters+1)
			for _, c := range fit {
				if c.Running != c.Enabled || c.Enabled == 0 {
					t.Errorf("%s group-fit %s: running %d of %d, want 100%%", g.Name, c.Event, c.Running, c.Enabled)
				}
				if c.Raw != fit[0].Raw {
					t.Errorf("%s group-fit %s = %d, %s = %d: the members of one group count alike", g.Name, c.Event, c.Raw, fit[0].Event, fit[0].Raw)
				}
				if c.Raw < want || c.Raw > want+userSlack(g) {
					t.Errorf("%s group-fit %s = %d, want exactly %d", g.Name, c.Event, c.Raw, want)
				} else if c.Raw != want {
					t.Logf("%s group-fit %s = %d, %+d from %d (userSlack)", g.Name, c.Event, c.Raw, c.Raw-want, want)
				}
			}
			run := section(t, g, "group-big-run")
			if run.Status != 0 {
				// Refusing is fine if pmc says why in one line.
				t.Logf("%s group-big: pmc exited %d: %s", g.Name, run.Status, strings.TrimSpace(run.Output))
				if !strings.Contains(strings.ToLower(run.Output), "group") {
					t.Errorf("%s group-big: the error does not mention the group:\n%s", g.Name, run.Output)
				}
				return
			}
			r := measured(t, g, "group-big")
			for _, c := range r.Runs[0].Counts {
				t.Logf("%s group-big %s status=%s raw=%d running=%d/%d", g.Name, c.Event, c.Status, c.Raw, c.Running, c.Enabled)
				if c.Status == result.NotSupported && !strings.Contains(c.Error, "group") {
					t.Errorf("%s group-big %s: refused without naming the group as the reason: %q", g.Name, c.Event, c.Error)
				}
				if c.Status == result.Counted && c.Raw == 0 {
					t.Errorf("%s group-big %s: reported as counted 0; a group that never ran is not counted", g.Name, c.Event)
				}
				if c.Status == result.Counted && c.Running == 0 {
					t.Errorf("%s group-big %s: counted with time_running 0", g.Name, c.Event)
				}
			}
		})
	}
}

// TestPMCWeakGroup: a group that can never be scheduled (Counters+1 instruction counters),
// made weak ({...}:W), is counted as separate events on the real PMU driver, as perf counts
// it: every member counted, each in a group of its own, multiplexed, and its scaled estimate
// near the exact count (group-weak-base, the event alone; TestPMCMultiplex holds such
// estimates to 0.5%).
func TestPMCWeakGroup(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			exact := counts(t, g, "group-weak-base", 1)[0].Raw
			r := measured(t, g, "group-weak")
			cs := r.Runs[0].Counts
			if len(cs) != g.Counters+1 {
				t.Fatalf("%d counts, want %d", len(cs), g.Counters+1)
			}
			groups := map[int]bool{}
			for _, c := range cs {
				t.Logf("%s group-weak %s group %d raw=%d scaled=%.0f running=%d/%d", g.Name, c.Event, c.Group, c.Raw, c.Scaled, c.Running, c.Enabled)
				if c.Status != result.Counted || c.Running == 0 || groups[c.Group] {
					t.Errorf("%s: %s in group %d, running %d: want counted alone", c.Event, c.Status, c.Group, c.Running)
				}
				groups[c.Group] = true
				if d := math.Abs(c.Scaled-float64(exact)) / float64(exact); d > 0.03 {
					t.Errorf("%s scaled %.0f is %.2f%% from the exact %d", c.Event, c.Scaled, 100*d, exact)
				}
			}
			if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "weak group") }) {
				t.Errorf("no note says the weak group was split: %q", r.Notes)
			}
		})
	}
}

// TestPMCUnimplemented: events QEMU does not model count 0 (or are refused when the kernel
// hides them) without disturbing the others or failing the run.
func TestPMCUnimplemented(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			want := counts(t, g, "loop-1000000", 2)[0].Raw
			cs := measured(t, g, "unimpl").Runs[0].Counts
			if len(cs) != 4 {
				t.Fatalf("%s: %d counts, want 4", g.Name, len(cs))
			}
			if cs[0].Status != result.Counted || !withinSlack(t, g, "instructions:u", cs[0].Raw, want) {
				t.Errorf("%s: instructions:u next to unimplemented events = %d (%s), want %d", g.Name, cs[0].Raw, cs[0].Status, want)
			}
			for i, c := range cs[1:] {
				t.Logf("%s %s status=%s raw=%d error=%q encoding=%+v", g.Name, c.Event, c.Status, c.Raw, c.Error, c.Encoding)
				switch {
				case c.Status == result.NotSupported && i < 2 && c.Error != "":
					// A generic event the kernel cannot map on this PMU: refused with a reason.
				case c.Status == result.Counted && c.Raw == 0:
				default:
					t.Errorf("%s %s: status %s raw %d; want counted 0 (QEMU implements only INST_RETIRED and CPU_CYCLES)", g.Name, c.Event, c.Status, c.Raw)
				}
			}
			if c := cs[3]; c.Status != result.Counted {
				t.Errorf("%s %s: the raw/sysfs L1D refill event must open and count 0, got %s", g.Name, c.Event, c.Status)
			}
			if g.Name == "armv7" {
				t.Run("resolved-name", func(t *testing.T) {
					// The ARMv7 driver maps cache-misses to L1D_CACHE_REFILL (0x03): the label
					// must say so, as the Cortex-A5 seed's confusion came from this mapping.
					if e := cs[1].Encoding.Raw; !l1dRefill.MatchString(e) {
						t.Errorf("armv7: cache-misses reported as resolved to %q; want r3 (L1D_CACHE_REFILL)", e)
					}
				})
			}
		})
	}
}

// TestPMCInherit: counters follow forked children and threads (and only the main thread
// with --no-inherit).
func TestPMCInherit(t *testing.T) {
	units := uint64((ftProcs + 1) * (ftThreads + 1))
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			for _, c := range []struct {
				name string
				want uint64
			}{{"ft", 2 * ftN * units}, {"ft-noinherit", 2 * ftN}} {
				base := counts(t, g, c.name+"-0", 1)[0].Raw
				got := counts(t, g, fmt.Sprintf("%s-%d", c.name, ftN), 1)[0].Raw
				d := int64(got) - int64(base)
				t.Logf("%s %s: count(0)=%d count(%d)=%d diff=%d want %d (off by %d)", g.Name, c.name, base, ftN, got, d, c.want, d-int64(c.want))
				// Thread start-up and joins run through futexes whose user-space retries
				// depend on timing (measured: -251 to +364 instructions): allow 1000 + 0.01%.
				if tol := 1000 + 1e-4*float64(c.want); math.Abs(float64(d)-float64(c.want)) > tol {
					t.Errorf("%s %s: count(N)-count(0) = %d, want %d within %.0f", g.Name, c.name, d, c.want, tol)
				}
			}
		})
	}
}

package qemu

import (
	"encoding/json"
	"strings"
	"testing"
)

// memArgs is a small pmc mem sweep (8..32 KiB: every list fits the caches QEMU does not
// model anyway) that finishes in seconds under -icount shift=0.
const memArgs = "/bin/pmc mem --min 8K --max 32K --steps-per-octave 1 --hops 36000 --passes 1 --samples 200"

// memBatch (issue 15, item 16): pmc mem's single-hop timer. arm64: with the kernel's default
// perf_user_access=0 the monotonic clock and the sysctl hint; after writing 1, the cycle
// counter read with MRS PMCCNTR_EL0. armv7: 32-bit ARM Linux never lets user space read the
// cycle counter, which the output says.
func memBatch(g Guest) []Cmd {
	cmds := []Cmd{
		{"mem-text", memArgs + " --histograms none"},
		{"mem-json-run", memArgs + " --json -o /tmp/mem.json --samples-file /tmp/mem.dat"},
		{"mem-json", "cat /tmp/mem.json"},
	}
	if g.Name == "arm64" {
		cmds = append(cmds,
			Cmd{"mem-user-access", "write /proc/sys/kernel/perf_user_access 1"},
			Cmd{"mem-cycles-run", memArgs + " --json -o /tmp/mem-cycles.json --samples-file /tmp/mem-cycles.dat"},
			Cmd{"mem-cycles", "cat /tmp/mem-cycles.json"},
			Cmd{"mem-cycles-samples", "cat /tmp/mem-cycles.dat"},
			Cmd{"mem-cycles-text", memArgs + " --histograms tiers"},
			Cmd{"mem-user-access-off", "write /proc/sys/kernel/perf_user_access 0"},
		)
	}
	return cmds
}

type guestMem struct {
	Clock struct {
		Ticks     string  `json:"ticks"`
		TicksNote string  `json:"ticks_note"`
		Cycles    string  `json:"cycles"`
		BiasTicks float64 `json:"bias_ticks"`
		TickNS    float64 `json:"tick_ns"`
	} `json:"clock"`
	Points []struct {
		SizeBytes int64   `json:"size_bytes"`
		Cycles    float64 `json:"cycles"`
		Samples   struct {
			Count  int     `json:"count"`
			Unit   string  `json:"unit"`
			Min    float64 `json:"min"`
			P10    float64 `json:"p10"`
			Median float64 `json:"median"`
			P90    float64 `json:"p90"`
			Max    float64 `json:"max"`
			Bias   float64 `json:"bias"`
		} `json:"samples"`
		Hist []struct {
			Low   float64 `json:"low"`
			Count int     `json:"count"`
		} `json:"histogram"`
	} `json:"points"`
}

func memJSON(t *testing.T, g Guest, name string) guestMem {
	t.Helper()
	out := ok(t, g, name)
	var m guestMem
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	if len(m.Points) != 3 {
		t.Fatalf("%s: %d points, want 3 (8, 16, 32 KiB)", name, len(m.Points))
	}
	return m
}

// TestMemTimer (issue 15, item 16): which timer pmc mem used, and why, in each guest.
func TestMemTimer(t *testing.T) {
	for _, g := range Guests {
		t.Run(g.Name, func(t *testing.T) {
			needPMC(t, g)
			m := memJSON(t, g, "mem-json")
			text := ok(t, g, "mem-text")
			if m.Clock.Ticks != "monotonic" || m.Clock.Cycles != "pmu" {
				t.Errorf("clock %+v: want single hops on the monotonic clock, cycles from the PMU", m.Clock)
			}
			want := "user-space counter reads are off (kernel.perf_user_access = 0): run `sysctl -w kernel.perf_user_access=1`"
			if g.Name == "armv7" {
				want = "32-bit ARM Linux does not let user space read the cycle counter"
			}
			if !strings.Contains(m.Clock.TicksNote, want) || !strings.Contains(text, "timer: monotonic, not the cycle counter: "+want) {
				t.Errorf("ticks_note %q / text:\n%s\nwant %q", m.Clock.TicksNote, text, want)
			}
			t.Logf("%s: monotonic bias %.0f ns, 8 KiB median %.0f ns, %.1f cycles/hop", g.Name, m.Clock.BiasTicks,
				m.Points[0].Samples.Median, m.Points[0].Cycles)
			if g.Name != "arm64" {
				return
			}
			c := memJSON(t, g, "mem-cycles")
			if c.Clock.Ticks != "pmccntr" || c.Clock.TicksNote != "" {
				t.Fatalf("perf_user_access=1: clock %+v, want pmccntr", c.Clock)
			}
			// Under -icount shift=0 a cycle is an instruction: the empty interval is a fixed
			// number of instructions (ISB, DSB, ISB before the second MRS: 4) and a timed hop
			// is exactly one more (the load). Every sample, every size: bias + 1, one row.
			// With the monotonic clock the same hop read 144-224 ns of clock overhead.
			bias := c.Clock.BiasTicks
			if bias != 4 {
				t.Errorf("cycle timer bias %g cycles, want 4 (the instructions between the two reads)", bias)
			}
			for _, p := range c.Points {
				s := p.Samples
				t.Logf("%d bytes: samples %+v, hist %+v, block %.2f cycles/hop", p.SizeBytes, s, p.Hist, p.Cycles)
				if s.Unit != "cycles" || s.Count != 200 || s.Min != bias+1 || s.Max != bias+1 || s.Bias != bias ||
					len(p.Hist) != 1 || p.Hist[0].Low != bias+1 || p.Hist[0].Count != 200 {
					t.Errorf("%d bytes: samples %+v hist %+v; want all 200 at bias+1 = %g cycles", p.SizeBytes, s, p.Hist, bias+1)
				}
			}
			samples := strings.Fields(ok(t, g, "mem-cycles-samples"))
			if len(samples) != 2*600 || samples[0] != "5" || samples[1] != "8192" || samples[2*599] != "5" || samples[2*599+1] != "32768" {
				t.Errorf("--samples-file: %d fields, first %v; want 600 lines of \"5 SIZE\"", len(samples), samples[:min(4, len(samples))])
			}
			txt := ok(t, g, "mem-cycles-text")
			for _, want := range []string{"single hops timed with the cycle counter read from user space (MRS PMCCNTR_EL0",
				"median 5 cycles - bias 4 = 1 cycles per access"} {
				if !strings.Contains(txt, want) {
					t.Errorf("text lacks %q:\n%s", want, txt)
				}
			}
			if strings.Contains(txt, "timer:") {
				t.Errorf("the cycle counter timed the hops, yet a timer note:\n%s", txt)
			}
			t.Logf("cycle timer: bias %g cycles, tick %g ns", c.Clock.BiasTicks, c.Clock.TickNS)
		})
	}
}

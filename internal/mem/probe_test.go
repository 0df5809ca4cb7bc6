package mem

import (
	"math"
	"sort"
	"strings"
	"testing"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestRunTaskClockAgrees runs a small real sweep (blocks of 2^19 hops, about a millisecond,
// so that the fixed cost of reading counters stays far below 10%) with task-clock counted
// per size: the thread's CPU time per hop (the kernel's clock) must agree with pmc mem's own
// wall-clock ns per hop for the same fastest block: the median ratio over the sizes within
// 10%, at most one size beyond 20% (on a shared VM about one block in a hundred reads 15-40%
// more task-clock than wall time, cause not yet known); and a list that fits L1 must be
// faster than one four times the L2.
func TestRunTaskClockAgrees(t *testing.T) {
	c := Default()
	c.Min, c.Max, c.StepsPerOctave, c.Hops, c.Samples = 16<<10, 2<<20, 1, 1<<19, 50
	c.Events = []EventSpec{{Name: "task-clock", Attr: pe.Attr{Type: pe.TypeSoftware, Config: pe.SWTaskClock}}}
	res, err := Run(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 8 {
		t.Fatalf("%d points, want 8 (16 KiB..2 MiB)", len(res.Points))
	}
	var ratios []float64
	for _, p := range res.Points {
		if len(p.Events) != 1 {
			t.Fatalf("%s: events %+v", FormatSize(p.SizeBytes), p.Events)
		}
		e := p.Events[0]
		if e.Status == result.NotSupported && strings.Contains(e.Error, "permission") {
			t.Skipf("perf_event_open refused task-clock: %s", e.Error)
		}
		if e.Status != result.Counted || e.PerHop <= 0 {
			t.Fatalf("%s: task-clock %s %.3f ns/hop", FormatSize(p.SizeBytes), e.Status, e.PerHop)
		}
		ratios = append(ratios, e.PerHop/p.NS)
		if p.Samples.Count != 50 || len(p.Hist) == 0 {
			t.Errorf("%s: %d samples, %d histogram rows", FormatSize(p.SizeBytes), p.Samples.Count, len(p.Hist))
		}
	}
	sort.Float64s(ratios)
	off := 0
	for _, r := range ratios {
		if math.Abs(r-1) > 0.20 {
			off++
		}
	}
	if med := ratios[len(ratios)/2]; math.Abs(med-1) > 0.10 || off > 1 {
		t.Errorf("task-clock per hop / timed ns per hop over the sizes: %.3f (median %.3f); "+
			"want the median within 10%% and at most one size beyond 20%%", ratios, med)
	}
	if first, last := res.Points[0].NS, res.Points[len(res.Points)-1].NS; last < 2*first {
		t.Errorf("2 MiB list %.2f ns/hop is not clearly slower than 16 KiB %.2f ns/hop", last, first)
	}
	if res.Clock.TickNS <= 0 || res.Schema != SchemaVersion {
		t.Errorf("clock %+v schema %q", res.Clock, res.Schema)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := map[string]func(*Config){
		"--min":              func(c *Config) { c.Min = 64 },
		"--max":              func(c *Config) { c.Max = c.Min - 64 },
		"--steps-per-octave": func(c *Config) { c.StepsPerOctave = 0 },
		"--blocks":           func(c *Config) { c.Blocks = 0 },
		"--passes":           func(c *Config) { c.Passes = c.Blocks + 1 },
		"--hops":             func(c *Config) { c.Hops = 1 },
		"--samples":          func(c *Config) { c.Samples = -1 },
		"--order":            func(c *Config) { c.Order = "zigzag" },
	}
	for flag, mutate := range bad {
		c := Default()
		mutate(&c)
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), flag) {
			t.Errorf("%s: error %v, want one starting with the flag", flag, err)
		}
		if _, err := Run(c, nil); err == nil {
			t.Errorf("%s: Run accepted an invalid config", flag)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("default config: %v", err)
	}
}

// TestCounterSetFDs: the probe's counters are all closed, those that failed to open too.
func TestCounterSetFDs(t *testing.T) {
	testenv.CheckFDs(t)
	cs, notes := openCounters([]EventSpec{
		{Name: "task-clock", Attr: pe.Attr{Type: pe.TypeSoftware, Config: pe.SWTaskClock}},
		{Name: "bogus", Attr: pe.Attr{Type: pe.TypeSoftware, Config: 1 << 40}},
	})
	if len(notes) == 0 {
		t.Error("the bogus event opened")
	}
	cs.read()
	cs.close()
}

package compare

import (
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// cmdOf is a command whose runs have these wall times and task-clock counts (ms).
func cmdOf(label string, wall, taskMS []float64) Command {
	c := Command{Label: label, Backend: "perf_event"}
	for i := range wall {
		c.Runs = append(c.Runs, Run{Index: i, ElapsedSec: wall[i], UserSec: wall[i] / 2, Counts: []result.Count{{
			Event: "task-clock", CPU: -1, Status: result.Counted, Raw: uint64(taskMS[i] * 1e6), Scaled: taskMS[i] * 1e6,
			Enabled: 1, Running: 1, Unit: "msec"}}})
	}
	return c
}

func rowNamed(t *testing.T, c *Comparison, name string) Row {
	t.Helper()
	for _, r := range c.Rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no row %q", name)
	return Row{}
}

// TestChangeNeverBelowMinus100 is the case: a few runs with much spread gave
// "[-665.0%, +551.9%]" for a time, impossible for a quantity that cannot be negative. The
// interval is now of the ratio (Fieller): cut at -100% for times and counts, and none at all
// (said so) when the runs are too few for their spread.
func TestChangeNeverBelowMinus100(t *testing.T) {
	c := &Comparison{Source: "measured", Commands: []Command{
		cmdOf("A", []float64{0.10, 0.11, 0.10}, []float64{100, 101, 99}),
		cmdOf("B", []float64{0.02, 0.30, 0.03}, []float64{1, 30, 2}),
	}}
	Build(c)
	for _, r := range c.Rows {
		d := r.Cells[1].Delta
		if r.Name == "sys time" {
			continue // 0 in every run: no change to state
		}
		if d == nil || !d.Tested {
			t.Fatalf("%s: no test: %+v", r.Name, d)
		}
		if lo, _, ok := d.Interval(); ok && lo < -100 {
			t.Errorf("%s: interval %s goes below -100%%", r.Name, CIText(d))
		}
	}
	tc := rowNamed(t, c, "task-clock").Cells[1].Delta
	if lo, hi, ok := tc.Interval(); !ok || lo != -100 || hi < -49 || hi > -48 {
		t.Errorf("task-clock: %s, want [-100.0%%, -48.1%%] (Fieller, cut at 0)", CIText(tc))
	}
	// Two runs each with 20% spread: too few to bound the ratio; the text says so.
	c = &Comparison{Source: "measured", Commands: []Command{
		cmdOf("A", []float64{0.10, 0.13}, []float64{100, 130}),
		cmdOf("B", []float64{0.04, 0.09}, []float64{40, 90}),
	}}
	Build(c)
	tc = rowNamed(t, c, "task-clock").Cells[1].Delta
	if _, _, ok := tc.Interval(); ok || tc.Significant || !strings.Contains(CIText(tc), "too few runs") || tc.CINote == "" {
		t.Errorf("two runs, 20%% spread: CI %q (note %q), significant %v; want none, said so", CIText(tc), tc.CINote, tc.Significant)
	}
	var text strings.Builder
	Text(&text, c, TextOptions{})
	if strings.Contains(text.String(), "[-") || !strings.Contains(text.String(), "too few runs") {
		t.Errorf("text prints an interval it cannot bound:\n%s", text.String())
	}
}

// TestZeroAgainstSpread: a time that is 0 in every run of B (the A57 guest's user time) but
// varies in A: the change is -100% exactly and the JSON writes (it failed on a NaN).
func TestZeroAgainstSpread(t *testing.T) {
	a := cmdOf("A", []float64{0.0013, 0.0012, 0.0014}, []float64{1, 1, 1})
	b := cmdOf("B", []float64{0.0013, 0.0012, 0.0014}, []float64{1, 1, 1})
	for i := range b.Runs {
		b.Runs[i].UserSec = 0
	}
	c := &Comparison{Source: "saved", Commands: []Command{a, b}}
	Build(c)
	if lo, hi, ok := rowNamed(t, c, "user time").Cells[1].Delta.Interval(); !ok || lo != -100 || hi != -100 {
		t.Errorf("user time 0 against spread: [%v, %v] %v, want -100%%", lo, hi, ok)
	}
	var b2 strings.Builder
	if err := JSON(&b2, c); err != nil {
		t.Errorf("JSON: %v", err)
	}
}

// TestPeakRSSUnknown: a command whose peak pmc cannot tell (below its launcher's own, the
// run's max_rss_kb absent) shows <not measured> in the peak RSS row beside another's real
// peak, never 0 KiB nor a -100% change; the other keeps its value.
func TestPeakRSSUnknown(t *testing.T) {
	small, big := cmdOf("small", []float64{0.1, 0.1}, []float64{90, 90}), cmdOf("big", []float64{0.2, 0.2}, []float64{190, 190})
	for i := range big.Runs {
		big.Runs[i].MaxRSSKB = 1 << 20
	}
	c := &Comparison{Source: "measured", Commands: []Command{small, big}}
	Build(c)
	row := rowNamed(t, c, "peak RSS")
	if s := row.Cells[0]; s.Status != NotMeasured || len(s.Values) != 0 || s.Error == "" {
		t.Errorf("small's peak RSS cell %+v, want %s with no values and a reason", s, NotMeasured)
	}
	if b := row.Cells[1]; b.Status != string(result.Counted) || b.Stats.Mean != 1<<20 {
		t.Errorf("big's peak RSS cell %+v, want counted, mean %d", b, 1<<20)
	}
	var text strings.Builder
	Text(&text, c, TextOptions{})
	if !strings.Contains(text.String(), "<not measured>") || strings.Contains(text.String(), "-100.0%") {
		t.Errorf("text:\n%s", text.String())
	}
}

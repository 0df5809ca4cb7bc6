package mem

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/pmc-tools/pmc/internal/golden"
)

// golden compares got with testdata/<name>, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

type curve struct {
	Caches []Cache `json:"caches"`
	Points []Point `json:"points"`
}

// TestDetectGolden runs tier detection on recorded and synthetic latency curves
// (testdata/curves/*.json) and compares the printed tiers and steps with the golden files.
func TestDetectGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/curves/*.json")
	if len(files) < 5 {
		t.Fatalf("only %d curves", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c curve
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatal(err)
			}
			r := &Result{Caches: c.Caches, Points: c.Points}
			r.Tiers, r.Steps = Detect(c.Points, c.Caches)
			var b bytes.Buffer
			WriteSummary(&b, r, "none")
			golden(t, "curves/"+name+".golden", b.Bytes())
		})
	}
}

// TestDetectFacts pins what the goldens must show, so an -update cannot silently accept a
// regression: the L1 step at 32 KiB and the DRAM step on the Zen 3 curve, and the seed's
// three tiers.
func TestDetectFacts(t *testing.T) {
	load := func(name string) curve {
		data, err := os.ReadFile("testdata/curves/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var c curve
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := load("zen3-vm")
	tiers, steps := Detect(c.Points, c.Caches)
	var levels []string
	for _, tr := range tiers {
		levels = append(levels, tr.Level)
	}
	if got := strings.Join(levels, " "); got != "L1 L2 L3 DRAM" {
		t.Errorf("zen3-vm levels %q, want L1 L2 L3 DRAM", got)
	}
	if len(steps) < 1 || steps[0].Cache != "L1d" || steps[0].AfterBytes != 32<<10 {
		t.Errorf("zen3-vm first step %+v, want L1d after 32 KiB", steps)
	}
	if last := tiers[len(tiers)-1]; last.NS < 100 || last.Level != "DRAM" {
		t.Errorf("zen3-vm last tier %+v, want DRAM above 100 ns", last)
	}

	c = load("seed-arm1176")
	tiers, steps = Detect(c.Points, c.Caches)
	want := [][2]int64{{8 << 10, 16 << 10}, {32 << 10, 64 << 10}, {128 << 10, 4 << 20}}
	if len(tiers) != len(want) {
		t.Fatalf("seed: %d tiers, want 3 (C, B, A): %+v", len(tiers), tiers)
	}
	for i, w := range want {
		if tiers[i].FromBytes != w[0] || tiers[i].ToBytes != w[1] {
			t.Errorf("seed tier %d: %s..%s, want %s..%s", i, FormatSize(tiers[i].FromBytes),
				FormatSize(tiers[i].ToBytes), FormatSize(w[0]), FormatSize(w[1]))
		}
	}
	if steps[0].Cache != "L1d" || steps[1].Cache != "" {
		t.Errorf("seed steps %+v: want the L1D step matched and the TLB step unmatched", steps)
	}

	c = load("spike")
	if tiers, _ = Detect(c.Points, c.Caches); len(tiers) != 2 {
		t.Errorf("spike: %d tiers, want 2 (the spike filtered out): %+v", len(tiers), tiers)
	}
	if tiers, steps = Detect(nil, nil); tiers != nil || steps != nil {
		t.Errorf("no points: %v %v", tiers, steps)
	}
}

func TestSizes(t *testing.T) {
	got := Sizes(4<<10, 64<<10, 2)
	want := []int64{4096, 5760, 8192, 11584, 16384, 23168, 32768, 46336, 65536}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if s := Sizes(128, 128, 4); len(s) != 1 || s[0] != 128 {
		t.Errorf("single size: %v", s)
	}
}

// TestDetectMinAboveL1: a sweep that starts above L1 names its tiers from the sysfs cache
// sizes, not from their order (`--min 1M` named its first tier L1): the Zen 3 curve from
// 1 MiB starts in L3, from 64 KiB in L2, and past the last cache it is DRAM.
func TestDetectMinAboveL1(t *testing.T) {
	data, err := os.ReadFile("testdata/curves/zen3-vm.json")
	if err != nil {
		t.Fatal(err)
	}
	var c curve
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from int64
		want string
	}{{1 << 20, "L3 DRAM"}, {64 << 10, "L2 L3 DRAM"}, {4 << 10, "L1 L2 L3 DRAM"}, {64 << 20, "DRAM"}} {
		var pts []Point
		for _, p := range c.Points {
			if p.SizeBytes >= tc.from {
				pts = append(pts, p)
			}
		}
		tiers, _ := Detect(pts, c.Caches)
		var levels []string
		for _, tr := range tiers {
			if !strings.HasSuffix(tr.Level, "+TLB") {
				levels = append(levels, tr.Level)
			}
		}
		if got := strings.Join(levels, " "); got != tc.want {
			t.Errorf("from %s: levels %q (%+v), want %q", FormatSize(tc.from), got, tiers, tc.want)
		}
	}
}

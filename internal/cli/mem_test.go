package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestMemBadFlags: one-line errors naming the flag, exit status 1, no panic.
func TestMemBadFlags(t *testing.T) {
	cases := map[string][]string{
		"--min":               {"mem", "--min", "12X"},
		"--max 64 B is below": {"mem", "--min", "4K", "--max", "64"},
		"--order":             {"mem", "--order", "backwards"},
		"--steps-per-octave":  {"mem", "--steps-per-octave", "0"},
		"--histograms":        {"mem", "--histograms", "some"},
		"--passes":            {"mem", "--passes", "50"},
		"--max 32 GiB":        {"mem", "--max", "32G"},
		"--pages":             {"mem", "--pages", "2m"},
	}
	for want, args := range cases {
		var out, errb bytes.Buffer
		code := testRun(args, &out, &errb)
		msg := errb.String()
		if code != 1 || !strings.Contains(msg, strings.Fields(want)[0]) || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one line naming %s", args, code, msg, want)
		}
	}
}

// TestMemJSONSmall runs a tiny real probe (16 KiB..64 KiB) and checks the document's shape:
// schema, one point per size, samples as asked.
func TestMemJSONSmall(t *testing.T) {
	var out, errb bytes.Buffer
	code := testRun([]string{"mem", "--json", "--min", "16K", "--max", "64K", "--steps-per-octave", "1",
		"--hops", "12000", "--samples", "30"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Schema string `json:"schema"`
		Points []struct {
			SizeBytes int64   `json:"size_bytes"`
			NS        float64 `json:"ns"`
			Samples   struct {
				Count int `json:"count"`
			} `json:"samples"`
		} `json:"points"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if doc.Schema != "pmc.mem/v1" || len(doc.Points) != 3 {
		t.Fatalf("schema %q, %d points; want pmc.mem/v1 and 3 (16, 32, 64 KiB)", doc.Schema, len(doc.Points))
	}
	for i, p := range doc.Points {
		if p.SizeBytes != int64(16<<10)<<i || p.NS <= 0 || p.Samples.Count != 30 {
			t.Errorf("point %d: %+v", i, p)
		}
	}
}

// memDoc is the part of a pmc.mem/v1 document these tests read.
type memDoc struct {
	Schema string `json:"schema"`
	Clock  struct {
		Ticks     string `json:"ticks"`
		TicksNote string `json:"ticks_note"`
	} `json:"clock"`
	Pages *struct {
		Request   string `json:"request"`
		THP       string `json:"thp"`
		ListBytes int64  `json:"list_bytes"`
		HugeBytes int64  `json:"huge_bytes"`
		HugeError string `json:"huge_error"`
	} `json:"pages"`
	Points []struct {
		SizeBytes int64 `json:"size_bytes"`
		Samples   struct {
			Count      int     `json:"count"`
			Unit       string  `json:"unit"`
			Median     float64 `json:"median"`
			Min        float64 `json:"min"`
			Max        float64 `json:"max"`
			Resolution float64 `json:"resolution"`
		} `json:"samples"`
	} `json:"points"`
}

func runMemJSON(t *testing.T, args ...string) (memDoc, string) {
	t.Helper()
	var out, errb bytes.Buffer
	base := []string{"mem", "--json", "--steps-per-octave", "1", "--hops", "12000", "--passes", "1"}
	if code := testRun(append(base, args...), &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	var doc memDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return doc, errb.String()
}

// TestMemTimerNamed: the JSON says which timer timed single hops. On a machine whose
// cycles event opens and allows RDPMC that is "rdpmc"; otherwise (this x86 VM has no PMU)
// the TSC, with the reason in ticks_note.
func TestMemTimerNamed(t *testing.T) {
	doc, _ := runMemJSON(t, "--min", "16K", "--max", "32K", "--samples", "20")
	switch runtime.GOARCH {
	case "amd64":
		if doc.Clock.Ticks == "rdpmc" {
			if doc.Clock.TicksNote != "" || doc.Points[0].Samples.Unit != "cycles" {
				t.Errorf("rdpmc with a note %q or unit %q", doc.Clock.TicksNote, doc.Points[0].Samples.Unit)
			}
			return
		}
		t.Log("NOT TESTED here: single hops timed by the cycle counter (rdpmc), which this machine does not offer")
		if doc.Clock.Ticks != "tsc" || doc.Clock.TicksNote == "" {
			t.Errorf("clock.ticks %q note %q: want tsc and why not the cycle counter", doc.Clock.Ticks, doc.Clock.TicksNote)
		}
	default:
		if doc.Clock.Ticks == "" || (doc.Clock.Ticks == "monotonic") != (doc.Clock.TicksNote != "") {
			t.Errorf("clock.ticks %q note %q", doc.Clock.Ticks, doc.Clock.TicksNote)
		}
	}
}

// TestMemSamplesFile: --samples-file writes every single-hop sample, latency first and the
// list size second, and they are the samples the JSON summarises: per size the count, the
// minimum, the maximum and the median agree.
func TestMemSamplesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "samples.dat")
	doc, _ := runMemJSON(t, "--min", "16K", "--max", "64K", "--samples", "31", "--samples-file", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bySize := map[int64][]float64{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("line %q: want latency and size", line)
		}
		x, err1 := strconv.ParseFloat(f[0], 64)
		size, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %q", line)
		}
		bySize[size] = append(bySize[size], x)
	}
	if len(bySize) != 3 || len(doc.Points) != 3 {
		t.Fatalf("%d sizes in the file, %d points; want 3", len(bySize), len(doc.Points))
	}
	for _, p := range doc.Points {
		xs := bySize[p.SizeBytes]
		sort.Float64s(xs)
		s := p.Samples
		// A coarse clock's samples are written in whole steps (as the histogram shows them),
		// the JSON's summary is of the samples as read: within half a step.
		tol := 0.0
		if s.Resolution > 1.5 {
			tol = s.Resolution/2 + 0.1
		}
		near := func(a, b float64) bool { return math.Abs(a-b) <= tol }
		if len(xs) != s.Count || s.Count != 31 || !near(xs[0], s.Min) || !near(xs[len(xs)-1], s.Max) || !near(xs[15], s.Median) {
			t.Errorf("%d bytes: file has %d samples %v; JSON %+v", p.SizeBytes, len(xs), xs, s)
		}
	}
}

// TestMemPages: --pages 4k keeps the list off huge pages; --pages thp puts some of an 8 MiB
// list (at least one aligned 2 MiB range) on them where the system allows THP by madvise.
func TestMemPages(t *testing.T) {
	doc, _ := runMemJSON(t, "--min", "4M", "--max", "8M", "--samples", "5", "--pages", "4k")
	p := doc.Pages
	if p == nil || p.Request != "4k" || p.ListBytes != 8<<20 || p.HugeBytes != 0 || p.HugeError != "" {
		t.Fatalf("--pages 4k: %+v", p)
	}
	doc, _ = runMemJSON(t, "--min", "4M", "--max", "8M", "--samples", "5", "--pages", "thp")
	p = doc.Pages
	if p == nil || p.Request != "thp" || p.HugeError != "" {
		t.Fatalf("--pages thp: %+v", p)
	}
	if p.THP != "always" && p.THP != "madvise" {
		t.Logf("NOT TESTED: the list on huge pages (transparent huge pages are %q here)", p.THP)
	} else if p.HugeBytes < 2<<20 {
		t.Errorf("--pages thp with THP %s: only %d bytes on huge pages", p.THP, p.HugeBytes)
	}
}

// TestMemProgress: progress lines go to stderr only when it is a terminal, and never into
// the JSON on stdout.
func TestMemProgress(t *testing.T) {
	_, stderr := runMemJSON(t, "--min", "16K", "--max", "32K", "--samples", "5")
	if stderr != "" {
		t.Errorf("stderr not a terminal, yet: %q", stderr)
	}
	old := stderrIsTerminal
	stderrIsTerminal = func(io.Writer) bool { return true }
	defer func() { stderrIsTerminal = old }()
	doc, stderr := runMemJSON(t, "--min", "16K", "--max", "32K", "--samples", "5")
	if len(doc.Points) != 2 || !strings.Contains(stderr, "pmc mem: pass 1/1, size 2/2 (32 KiB)") ||
		!strings.HasSuffix(stderr, "\r\x1b[K") {
		t.Errorf("progress on a terminal: %q", stderr)
	}
}

// TestShowMem: pmc show of a pmc.mem/v1 file prints the text pmc mem printed: the recorded
// Zen 3 run gives internal/mem's text golden (header, rows, tiers, steps, histograms).
func TestShowMem(t *testing.T) {
	want, err := os.ReadFile("../mem/testdata/text.zen3-vm.golden")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := testRun([]string{"show", "../mem/testdata/result.zen3-vm.json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.String() != string(want) {
		t.Errorf("pmc show differs from pmc mem's text:\n%s", out.String())
	}
	if code := testRun([]string{"show", "--csv", "../mem/testdata/result.zen3-vm.json"}, &out, &errb); code == 0 {
		t.Error("--csv of a pmc.mem/v1 file accepted")
	}
}

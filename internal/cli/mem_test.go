package cli

import (
	"bytes"
	"encoding/json"
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

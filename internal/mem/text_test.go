package mem

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestTextGolden renders a result recorded with `pmc mem --min 8K --max 64M
// --steps-per-octave 1 --samples 200 --json` on the Zen 3 VM (testdata/result.zen3-vm.json):
// header, rows, tiers, steps and histograms, compared with testdata/text.zen3-vm.golden.
// The JSON must also read back into the same Result.
func TestTextGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/result.zen3-vm.json")
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Schema != SchemaVersion || len(r.Points) != 14 {
		t.Fatalf("recorded result: schema %q, %d points", r.Schema, len(r.Points))
	}
	var b bytes.Buffer
	WriteHeader(&b, &r)
	for _, p := range r.Points {
		WriteRow(&b, p)
	}
	WriteSummary(&b, &r, "tiers")
	golden(t, "text.zen3-vm.golden", b.Bytes())

	// Detect on the recorded points gives the recorded tiers and steps.
	tiers, steps := Detect(r.Points, r.Caches)
	if !reflect.DeepEqual(tiers, r.Tiers) || !reflect.DeepEqual(steps, r.Steps) {
		t.Errorf("Detect on the recorded points differs from the recorded tiers/steps:\n%+v\n%+v", tiers, r.Tiers)
	}
	out, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("JSON round trip changed the result: %v", err)
	}
}

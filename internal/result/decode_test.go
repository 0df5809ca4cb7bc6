package result

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeForms(t *testing.T) {
	doc := `{"schema":"pmc.stat/v1","mode":"launch","runs":[{"counts":[]}]}`
	iv := `{"schema":"pmc.stat.interval/v1","run":0,"time_sec":0.1,"counts":[]}`
	for name, c := range map[string]struct {
		in         string
		docs, ivs  int
		wantErrSub string
	}{
		"indented":  {in: "{\n  \"schema\": \"pmc.stat/v1\",\n  \"runs\": []\n}\n", docs: 1},
		"lines":     {in: doc + "\n" + doc + "\n", docs: 2},
		"intervals": {in: iv + "\n" + iv + "\n" + doc + "\n", docs: 1, ivs: 2},
		"cut":       {in: iv + "\n", wantErrSub: "without their pmc.stat/v1 document"},
		"other":     {in: `{"schema":"pmc.mem/v1"}`, wantErrSub: `schema "pmc.mem/v1"`},
		"array":     {in: `[1,2]`, wantErrSub: "want a JSON object"},
		"garbage":   {in: `not json`, wantErrSub: "not pmc JSON"},
		"empty":     {in: ``, wantErrSub: "no pmc.stat/v1 document"},
	} {
		var docs, ivs int
		err := Decode(strings.NewReader(c.in), func(d *Stat, _ json.RawMessage) error {
			docs++
			ivs += len(d.Intervals)
			return nil
		})
		if c.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrSub) {
				t.Errorf("%s: %v, want %q", name, err, c.wantErrSub)
			}
			continue
		}
		if err != nil || docs != c.docs || ivs != c.ivs {
			t.Errorf("%s: %d docs %d intervals, %v", name, docs, ivs, err)
		}
	}
}

// FuzzDecode: any input is read or refused with an error; what is read validates or not,
// sanitizes and summarizes without a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema":"pmc.stat/v1","runs":[{"elapsed_sec":1,"counts":[{"event":"a\u001b","status":"counted","raw":1,"scaled":1,"time_enabled_ns":2,"time_running_ns":1}]}]}`))
	f.Add([]byte(`{"schema":"pmc.stat.interval/v1","counts":[]}` + "\n" + `{"schema":"pmc.stat/v1"}`))
	f.Add([]byte(`{"schema":"pmc.stat/v1","elapsed_sec":-1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		Decode(bytes.NewReader(data), func(d *Stat, _ json.RawMessage) error {
			d.Validate()
			d.Sanitize()
			Summarize(d)
			return nil
		})
	})
}

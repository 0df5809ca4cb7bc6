package metrics

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestLoadFile(t *testing.T) {
	data, err := os.ReadFile("testdata/user-metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := LoadFile(data, "json")
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) != 3 || defs[0].Name != "l1d_miss_per_branch" || defs[1].Groups()[1] != "cache" || defs[2].Max != 100 {
		t.Fatalf("LoadFile = %+v", defs)
	}
	// User metrics may refer to built-ins; the merged set evaluates them.
	s, err := Builtin("").Merge(defs...)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := s.Select("mine")
	if err != nil || strings.Join(sel, ",") != "l1d_miss_per_branch,ipc_per_ghz" {
		t.Fatalf("Select(mine) = %v, %v", sel, err)
	}
	v, err := s.Eval("ipc_per_ghz", Env(map[string]float64{"instructions": 6, "cycles": 3, "task-clock": 1.5}))
	if err != nil || v != 1 {
		t.Errorf("ipc_per_ghz = %v, %v; want (6/3)/(3/1.5) = 1", v, err)
	}
}

func TestLoadFileErrors(t *testing.T) {
	tests := []struct{ data, format, want string }{
		{`[{"name": "a", "expr": "1"}]`, "yaml", "metrics: YAML metrics files are not supported; write the definitions as a JSON array"},
		{`[]`, "toml", `metrics: unknown metrics file format "toml"; use json`},
		{"[\n  {\"name\": \"a\", \"expresion\": \"1\"}\n]", "json", `metrics: file is not a JSON array of metric definitions: json: unknown field "expresion"`},
		{"[\n  {\"name\": \"a\",, \"expr\": \"1\"}]", "", "metrics: file line 2, column 17: invalid character ',' looking for beginning of object key string"},
		{`{"name": "a"}`, "", "metrics: file line 1, column 2: json: cannot unmarshal object into Go value of type []metrics.Def"},
		{`[{"name": "a", "expr": "1", "max": "big"}]`, "", `metrics: file line 1, column 41: json: cannot unmarshal string into Go struct field Def.max of type float64`},
		{`[] []`, "", "metrics: file: unexpected data after the JSON array"},
		{`[{"name": "a", "expr": "rato(x, y)"}]`, "", `metrics: a: at 1: unknown function "rato" (known: if, max, min, ratio)`},
		{`[{"name": "a", "expr": "1"}, {"name": "a", "expr": "2"}]`, "", "metrics: a: defined twice (entry 2)"},
		{`[{"expr": "1"}]`, "", `metrics: metric with expression "1" has no name (entry 1)`},
	}
	for _, tt := range tests {
		_, err := LoadFile([]byte(tt.data), tt.format)
		if err == nil || err.Error() != tt.want {
			t.Errorf("LoadFile(%q)\n got %v\nwant %s", tt.data, err, tt.want)
		}
	}
	_, err := LoadFile([]byte(`[{"name": "a", "expr": "a"}]`), "json")
	if err != nil {
		t.Fatalf("a self-reference is only caught when merged: %v", err)
	}
	defs, _ := LoadFile([]byte(`[{"name": "a", "expr": "b"}, {"name": "b", "expr": "a"}]`), "json")
	if _, err := Builtin("").Merge(defs...); !errors.Is(err, ErrCycle) {
		t.Errorf("merge of a cycle: %v", err)
	}
}

func FuzzLoadFile(f *testing.F) {
	data, err := os.ReadFile("testdata/user-metrics.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`[{"name": "a", "expr": "b / c", "max": 1e400}]`))
	f.Add([]byte(`[{"name": "x", "expr": "if(a, b"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := LoadFile(data, "json")
		if err != nil {
			return
		}
		if _, err := NewSet(defs...); err != nil && !errors.Is(err, ErrCycle) && !errors.Is(err, ErrSyntax) {
			t.Fatalf("NewSet of loaded defs: unexpected error %v", err)
		}
	})
}

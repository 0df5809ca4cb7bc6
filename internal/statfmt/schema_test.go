package statfmt

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

const schemaDoc = "../../docs/json-schema.md"

// jsonPaths lists the JSON field paths of t ("runs[].counts[].raw"). A struct type is
// described once, at the first path where it appears; later fields of that type are
// listed themselves but not descended into (summary[].encoding is documented as "as in
// Count").
func jsonPaths(t reflect.Type, prefix string, seen map[reflect.Type]bool, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := prefix + name
		*out = append(*out, path)
		ft := f.Type
		suffix := "."
		if ft.Kind() == reflect.Slice {
			ft, suffix = ft.Elem(), "[]."
		}
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && !seen[ft] {
			seen[ft] = true
			jsonPaths(ft, path+suffix, seen, out)
		}
	}
}

// TestSchemaDocumented fails when a field of result.Stat (or of the types inside it) has no
// row in docs/json-schema.md, or a row names a field that does not exist.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	// pmc.stat/v1's rows: from "## Document" to the next section of the same level (other
	// commands' schemas follow in the same file).
	section := doc
	if i := bytes.Index(section, []byte("\n## Document")); i >= 0 {
		section = section[i+1:]
		if j := bytes.Index(section[3:], []byte("\n## ")); j >= 0 {
			section = section[:j+3]
		}
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllSubmatch(section, -1) {
		documented[string(m[1])] = true
	}
	var paths []string
	jsonPaths(reflect.TypeOf(result.Stat{}), "", map[reflect.Type]bool{reflect.TypeOf(result.Stat{}): true}, &paths)
	if len(paths) < 60 {
		t.Fatalf("found only %d fields in result.Stat; the walk is broken", len(paths))
	}
	exists := map[string]bool{}
	for _, p := range paths {
		exists[p] = true
		if !documented[p] {
			t.Errorf("field %q of result.Stat is not documented in docs/json-schema.md: add a row (a new field is a compatible change; a renamed one bumps %s)", p, result.SchemaVersion)
		}
	}
	for p := range documented {
		if !exists[p] {
			t.Errorf("docs/json-schema.md documents %q, which result.Stat does not have", p)
		}
	}
	if !bytes.Contains(doc, []byte("`\""+result.SchemaVersion+"\"`")) {
		t.Errorf("docs/json-schema.md does not name the schema version %s", result.SchemaVersion)
	}
}

// TestJSONRoundTrip: the JSON decodes back to the same Result, and every document says
// its schema.
func TestJSONRoundTrip(t *testing.T) {
	for _, c := range goldenCases {
		r := c.build()
		data := renderJSON(t, r)
		if !bytes.HasSuffix(data, []byte("}\n")) {
			t.Errorf("%s: JSON does not end with a newline", c.name)
		}
		var back result.Stat
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(&back, r) {
			t.Errorf("%s: JSON round trip changed the Result", c.name)
		}
	}
	var b bytes.Buffer
	if err := JSON(&b, &result.Stat{Mode: "launch"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"schema": "`+result.SchemaVersion+`"`) {
		t.Errorf("an empty Schema is not filled in:\n%s", b.String())
	}
}

package compare

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// paths lists the JSON field paths of t, without descending into pmc.stat/v1's types
// (package result), which that schema documents.
func paths(t reflect.Type, prefix string, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		*out = append(*out, prefix+name)
		ft, suffix := f.Type, "."
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Slice {
			ft, suffix = ft.Elem(), "[]."
		}
		if ft.Kind() == reflect.Struct && !strings.HasSuffix(ft.PkgPath(), "/result") {
			paths(ft, prefix+name+suffix, out)
		}
	}
}

// TestSchemaDocumented: every field of a Comparison has a bullet in docs/json-schema.md's
// pmc.compare/v1 section, and every bullet names a field.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/json-schema.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## pmc compare: JSON schema `pmc.compare/v1`")
	if !ok {
		t.Fatal("docs/json-schema.md has no pmc.compare/v1 section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^- `([^`]+)` \\(").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	var ps []string
	paths(reflect.TypeOf(Comparison{}), "", &ps)
	exists := map[string]bool{}
	for _, p := range ps {
		exists[p] = true
		if !documented[p] {
			t.Errorf("field %q of pmc.compare/v1 has no bullet in docs/json-schema.md", p)
		}
	}
	for p := range documented {
		if !exists[p] {
			t.Errorf("docs/json-schema.md documents %q, which compare.Comparison does not have", p)
		}
	}
}

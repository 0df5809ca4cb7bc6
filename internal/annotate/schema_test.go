package annotate

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// jsonPaths lists the JSON field paths of t ("instructions[].skid.from").
func jsonPaths(t reflect.Type, prefix string, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		path := prefix + name
		*out = append(*out, path)
		ft, suffix := f.Type, "."
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Slice {
			ft, suffix = ft.Elem(), "[]."
		}
		if ft.Kind() == reflect.Struct {
			jsonPaths(ft, path+suffix, out)
		}
	}
}

// TestSchemaDocumented: every field of Result has a bullet in the pmc annotate section of
// docs/json-schema.md, and every bullet names a field.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/json-schema.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## pmc annotate: JSON schema `"+Schema+"`")
	if !ok {
		t.Fatalf("docs/json-schema.md has no section for %s", Schema)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	documented := map[string]bool{}
	bullet := regexp.MustCompile("(?m)^- (`[^`]+`(?:, `[^`]+`)*) \\(")
	for _, m := range bullet.FindAllStringSubmatch(section, -1) {
		for _, name := range strings.Split(m[1], ", ") {
			documented[strings.Trim(name, "`")] = true
		}
	}
	var paths []string
	jsonPaths(reflect.TypeOf(Result{}), "", &paths)
	if len(paths) < 20 {
		t.Fatalf("only %d fields found: the walk is broken", len(paths))
	}
	exists := map[string]bool{}
	for _, p := range paths {
		exists[p] = true
		if !documented[p] {
			t.Errorf("field %q of annotate.Result has no bullet in docs/json-schema.md", p)
		}
	}
	for p := range documented {
		if !exists[p] {
			t.Errorf("docs/json-schema.md documents %q, which annotate.Result does not have", p)
		}
	}
}

package testenv

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// SchemaDoc describes one schema's section of docs/json-schema.md for CheckSchemaDoc.
type SchemaDoc struct {
	Doc     string       // path of docs/json-schema.md from the test's directory
	Heading string       // the section starts at the line beginning with this ("## Document")
	Type    reflect.Type // the top-level Go type of the JSON document
	// Stop lists package path suffixes whose types are not descended into (another schema
	// documents them), e.g. "/result".
	Stop []string
	Min  int // fewer fields than this means the walk is broken
}

// JSONPaths lists the JSON field paths of t: "runs", "runs[].counts[].event",
// "machine.host". Pointers are followed, slices get "[]", a struct type is entered only where
// it first appears (its fields are documented once), and types of packages ending in one of stop are listed but not entered.
func JSONPaths(t reflect.Type, stop ...string) []string {
	var out []string
	jsonPaths(t, "", map[reflect.Type]bool{t: true}, stop, &out)
	return out
}

func jsonPaths(t reflect.Type, prefix string, seen map[reflect.Type]bool, stop []string, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
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
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct || seen[ft] || stopped(ft, stop) {
			continue
		}
		seen[ft] = true // a type is listed once, where it first appears (Count under runs[])
		jsonPaths(ft, path+suffix, seen, stop, out)
	}
}

func stopped(t reflect.Type, stop []string) bool {
	for _, s := range stop {
		if strings.HasSuffix(t.PkgPath(), s) {
			return true
		}
	}
	return false
}

var (
	tableRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	bullet   = regexp.MustCompile("(?m)^- (`[^`]+`(?:, `[^`]+`)*) \\(")
)

// CheckSchemaDoc fails t for every JSON field of s.Type without a row ("| `name` |") or a
// bullet ("- `name` (" or "- `a`, `b` (") in its section of the schema document, and for
// every documented name that is not a field: the documentation cannot drift from the code.
func CheckSchemaDoc(t *testing.T, s SchemaDoc) {
	t.Helper()
	doc, err := os.ReadFile(s.Doc)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), "\n"+s.Heading)
	if i < 0 {
		t.Fatalf("%s has no section %q", s.Doc, s.Heading)
	}
	section := string(doc[i+1:])
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	documented := map[string]bool{}
	for _, m := range tableRow.FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	for _, m := range bullet.FindAllStringSubmatch(section, -1) {
		for _, name := range strings.Split(m[1], ", ") {
			documented[strings.Trim(name, "`")] = true
		}
	}
	paths := JSONPaths(s.Type, s.Stop...)
	if len(paths) < s.Min {
		t.Fatalf("only %d fields found in %v: the walk is broken", len(paths), s.Type)
	}
	exists := map[string]bool{}
	for _, p := range paths {
		exists[p] = true
		if !documented[p] {
			t.Errorf("field %q of %v is not documented in %s (section %q): add it (a new field is a compatible change; a renamed one bumps the schema version)", p, s.Type, s.Doc, s.Heading)
		}
	}
	for p := range documented {
		if !exists[p] {
			t.Errorf("%s documents %q, which %v does not have", s.Doc, p, s.Type)
		}
	}
}

package catalog

import (
	"bytes"
	"go/format"
	"os"
	"reflect"
	"testing"
)

// TestGeneratedTablesAreCurrent fails when data/ (or the generator) changed and
// tables_gen.go was not regenerated: run `go generate ./internal/catalog`.
func TestGeneratedTablesAreCurrent(t *testing.T) {
	src, err := Generate(os.DirFS("data"))
	if err != nil {
		t.Fatal(err)
	}
	if src, err = format.Source(src); err != nil {
		t.Fatalf("the generated source does not parse: %v", err)
	}
	have, err := os.ReadFile("tables_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, have) {
		t.Fatal("tables_gen.go is stale: run go generate ./internal/catalog")
	}
}

// TestBuiltinIsTheParsedData: the compiled-in tables are what parsing data/ gives, table by
// table and field by field (lookup indexes and generic maps included).
func TestBuiltinIsTheParsedData(t *testing.T) {
	parsed, err := load(os.DirFS("data"))
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.tables) != len(builtin.tables) {
		t.Fatalf("%d built-in tables, data/ has %d", len(builtin.tables), len(parsed.tables))
	}
	for i, p := range parsed.tables {
		if b := builtin.tables[i]; !reflect.DeepEqual(p, b) {
			t.Errorf("table %s: the built-in table differs from data/", p.Name)
		}
	}
}

// TestLookupIndex: every event is found by its name in any case, and only by a name it has.
func TestLookupIndex(t *testing.T) {
	for _, tb := range mustLoad(t).Tables() {
		for _, e := range tb.Events() {
			for _, n := range []string{e.Name, " " + e.Name, toggleCase(e.Name)} {
				if got, ok := tb.Lookup(n); !ok || got != e {
					t.Errorf("%s: Lookup(%q) = %v, %v", tb.Name, n, got.Name, ok)
				}
			}
		}
		if _, ok := tb.Lookup("no_such_event_" + tb.Name); ok {
			t.Errorf("%s: found an event that is not there", tb.Name)
		}
	}
}

func toggleCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

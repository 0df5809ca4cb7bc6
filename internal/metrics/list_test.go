package metrics

import (
	"bytes"
	"path/filepath"
	"testing"

	goldenfile "github.com/pmc-tools/pmc/internal/golden"
)

func TestListGolden(t *testing.T) {
	for _, arch := range []string{"generic", ArchARM1176} {
		a := arch
		if a == "generic" {
			a = ArchGeneric
		}
		var buf bytes.Buffer
		if err := Builtin(a).List(&buf); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "list."+arch+".golden")
		goldenfile.Check(t, golden, buf.Bytes())
	}
	s, err := NewSet(Def{Name: "x", Expr: "a / b"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.List(&buf); err != nil || buf.String() != "(no group):\n  x                                           a / b\n" {
		t.Errorf("ungrouped listing = %q, %v", buf.String(), err)
	}
}

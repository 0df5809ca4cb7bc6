package metrics

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

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
		if *update {
			if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s listing differs from %s (go test -update rewrites it):\n%s", arch, golden, buf.String())
		}
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

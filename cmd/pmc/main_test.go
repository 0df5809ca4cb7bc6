package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestNoTestSupportInBinary: pmc's binary links no testing package (testing/fstest once came
// in through the machine facts of the CLI). Test support lives in _test.go files and in
// internal/testenv, which only tests import.
func TestNoTestSupportInBinary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		testenv.Missing(t, "go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "testing" || strings.HasPrefix(p, "testing/") || strings.HasSuffix(p, "/internal/testenv") {
			t.Errorf("pmc links %s", p)
		}
	}
}

// TestArchitectureDoc: docs/architecture.md names every package under internal/.
func TestArchitectureDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("../../internal")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && !strings.Contains(string(doc), "internal/"+e.Name()) {
			t.Errorf("docs/architecture.md does not mention internal/%s", e.Name())
		}
	}
}

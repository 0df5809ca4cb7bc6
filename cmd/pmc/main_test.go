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

// TestArchitectureDoc: docs/architecture.md names every package under internal/, and its
// list of imports is the one go list gives: an import the code has and the list lacks
// (undrawn), or one the list has and the code no longer (stale), fails.
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
	drawn := docImports(t, string(doc))
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "../../cmd/...", "../../internal/...").Output()
	if err != nil {
		testenv.Missing(t, "go list: %v", err)
	}
	const module = "github.com/pmc-tools/pmc/"
	code := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		pkg = strings.TrimPrefix(pkg, module)
		code[pkg+":"] = true
		for _, imp := range strings.Fields(imports) {
			if imp, ok := strings.CutPrefix(imp, module); ok && strings.HasPrefix(imp, "internal/") {
				code[pkg+" -> "+imp] = true
			}
		}
	}
	for e := range code {
		if !drawn[e] {
			t.Errorf("docs/architecture.md's import list lacks %s (undrawn)", strings.TrimSuffix(e, ":"))
		}
	}
	for e := range drawn {
		if !code[e] {
			t.Errorf("docs/architecture.md's import list has %s, which the code no longer has (stale)", strings.TrimSuffix(e, ":"))
		}
	}
}

// docImports reads the "## Imports" section's lines "    PKG: IMPORT ..." ("-" for none)
// into "PKG:" and "PKG -> IMPORT" entries.
func docImports(t *testing.T, doc string) map[string]bool {
	_, sec, ok := strings.Cut(doc, "\n## Imports")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Imports section")
	}
	m := map[string]bool{}
	for _, line := range strings.Split(sec, "\n") {
		pkg, imports, ok := strings.Cut(strings.TrimPrefix(line, "    "), ": ")
		if !strings.HasPrefix(line, "    ") || !ok {
			continue
		}
		m[pkg+":"] = true
		for _, imp := range strings.Fields(imports) {
			if imp != "-" {
				m[pkg+" -> "+imp] = true
			}
		}
	}
	return m
}

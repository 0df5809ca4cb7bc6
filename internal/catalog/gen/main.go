// Command gen writes internal/catalog/tables_gen.go from internal/catalog/data (run by
// `go generate ./internal/catalog`, in that directory).
package main

import (
	"fmt"
	"go/format"
	"os"

	"github.com/pmc-tools/pmc/internal/catalog"
)

func main() {
	src, err := catalog.Generate(os.DirFS("data"))
	if err == nil {
		src, err = format.Source(src)
	}
	if err == nil {
		err = os.WriteFile("tables_gen.go", src, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "catalog/gen: %v\n", err)
		os.Exit(1)
	}
}

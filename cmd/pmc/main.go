// Command pmc counts, explains, compares and samples hardware performance events on Linux.
package main

import (
	"os"

	"github.com/pmc-tools/pmc/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}

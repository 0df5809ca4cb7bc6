// Command pmc counts hardware performance events on Linux and explains what they count.
package main

import (
	"os"

	"github.com/pmc-tools/pmc/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}

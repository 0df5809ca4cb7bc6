package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// Run executes pmc with args (without the program name) and returns the process exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "pmc",
		Short:         "count, explain, compare and sample hardware performance events",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.Execute(); err != nil {
		io.WriteString(stderr, "pmc: "+err.Error()+"\n")
		return 1
	}
	return 0
}

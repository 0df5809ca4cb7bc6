package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/buildinfo"
)

// release is pmc's version number; a build from a git checkout adds its commit. make release
// sets it from git describe (-X), which names the commit itself.
var release = "0.2.0-dev"

// version is pmc's version: the release and the commit (buildinfo.Version).
func version() string { return buildinfo.Version(release) }

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print pmc's version, its Go version and the platform it was built for",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(e.stdout, "pmc %s, %s %s/%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

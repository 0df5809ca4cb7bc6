package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// release is pmc's version number; a build from a git checkout adds its commit. make release
// sets it from git describe (-X), which names the commit itself.
var release = "0.2.0-dev"

// version is "0.2.0-dev (git 1a2b3c4d5e6f, modified)", or the release alone when the
// build carries no VCS information (go test, a source tarball) or when the release already
// names the commit (make release: "0.2.0-dev-g1a2b3c4d5e6f").
func version() string {
	v := release
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, "g"+rev) {
		v += " (git " + rev + modified + ")"
	}
	return v
}

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

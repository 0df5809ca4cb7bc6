package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is "0.2.0-dev (git 1a2b3c4d5e6f, modified)" for release "0.2.0-dev", or the
// release alone when the build carries no VCS information (go test, a source tarball) or
// when the release already names the commit (make release: "0.2.0-dev-g1a2b3c4d5e6f").
func Version(release string) string {
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

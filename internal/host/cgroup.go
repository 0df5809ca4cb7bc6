package host

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/pmc-tools/pmc/internal/pmu"
)

// ErrNoCgroup2: the machine has no cgroup v2 hierarchy mounted.
var ErrNoCgroup2 = errors.New("no cgroup v2 hierarchy is mounted (mount -t cgroup2 none /sys/fs/cgroup, or boot with systemd.unified_cgroup_hierarchy=1)")

// Cgroup2Mount finds where the cgroup v2 hierarchy is mounted in a /proc/self/mounts text:
// /sys/fs/cgroup on a unified system, /sys/fs/cgroup/unified on a hybrid one.
func Cgroup2Mount(mounts []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(mounts))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 3 && f[2] == "cgroup2" {
			return unescapeMount(f[1]), nil
		}
	}
	return "", ErrNoCgroup2
}

// unescapeMount undoes the octal escapes of /proc/mounts (\040 is a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Cgroup2Mount is where this machine's cgroup v2 hierarchy is mounted.
func (m *Machine) Cgroup2Mount() (string, error) {
	b, err := m.readRoot("proc/self/mounts")
	if err != nil {
		return "", fmt.Errorf("reading the mount table: %w", err)
	}
	return Cgroup2Mount(b)
}

// OnlineNow reads the online CPUs afresh (Machine.PMUs.Online is what they were at the
// probe): a long-running counter follows CPU hotplug with it.
func (m *Machine) OnlineNow() ([]int, error) {
	if m.Sys == nil {
		return nil, fs.ErrNotExist
	}
	b, err := fs.ReadFile(m.Sys, pmu.OnlineFile)
	if err != nil {
		return nil, err
	}
	return pmu.ParseCPUList(string(b))
}

// MatchCgroups walks a cgroup v2 hierarchy (fsys is its mount point) and returns the cgroups
// whose path relative to the root ("system.slice/ssh.service") matches one of the patterns
// (path.Match globs, "*" does not cross a "/"), sorted, at most limit of them (0: no limit);
// more is how many matched beyond the limit. Directories deeper than the deepest pattern
// are not visited. A bad pattern is an error naming it.
func MatchCgroups(fsys fs.FS, patterns []string, limit int) (cgroups []string, more int, err error) {
	depth := 0
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, 0, fmt.Errorf("cgroup pattern %q: %w", p, err)
		}
		if p = strings.Trim(p, "/"); p != "" {
			depth = max(depth, strings.Count(p, "/")+1)
		}
	}
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == "." {
				return err
			}
			return nil // a cgroup removed while walking
		}
		if !d.IsDir() {
			return nil
		}
		if name != "." {
			for _, p := range patterns {
				if ok, _ := path.Match(strings.Trim(p, "/"), name); ok {
					if limit > 0 && len(cgroups) >= limit {
						more++
					} else {
						cgroups = append(cgroups, name)
					}
					break
				}
			}
		}
		if name != "." && strings.Count(name, "/")+1 >= depth {
			return fs.SkipDir
		}
		return nil
	})
	return cgroups, more, err
}

// CgroupTree is the cgroup v2 hierarchy mounted at mount, to walk with MatchCgroups.
func CgroupTree(mount string) fs.FS { return os.DirFS(mount) }

package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Cgroup creates an empty cgroup v2 named name under mount, the machine's cgroup v2 mount
// (host.Live().Cgroup2Mount() and its error), and returns its absolute path; it is removed at the end of the test (its
// processes killed first). The test skips without a writable cgroup v2 hierarchy unless CI
// is set. Put a command in it with InCgroup.
func Cgroup(t testing.TB, name, mount string, err error) (dir string) {
	t.Helper()
	if err == nil {
		dir = filepath.Join(mount, name)
		err = os.Mkdir(dir, 0o755)
	}
	if err != nil {
		Missing(t, "no writable cgroup v2 hierarchy: %v", err)
	}
	t.Cleanup(func() { RemoveCgroup(dir) })
	return dir
}

// RemoveCgroup kills the processes of a cgroup and removes it (waiting up to a second for
// them to go).
func RemoveCgroup(dir string) error {
	var err error
	for i := 0; i < 100; i++ {
		if b, rerr := os.ReadFile(filepath.Join(dir, "cgroup.procs")); rerr == nil {
			for _, f := range strings.Fields(string(b)) {
				var pid int
				if _, e := fmt.Sscan(f, &pid); e == nil && pid > 0 {
					if p, e := os.FindProcess(pid); e == nil {
						p.Kill()
					}
				}
			}
		}
		if err = os.Remove(dir); err == nil || os.IsNotExist(err) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// InCgroup is a command line that runs argv inside the cgroup dir: a shell moves itself
// there and execs argv, so the whole of argv's run is the cgroup's.
func InCgroup(dir string, argv ...string) []string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return []string{"sh", "-c", fmt.Sprintf("echo $$ > '%s/cgroup.procs' && exec %s", dir, strings.Join(q, " "))}
}

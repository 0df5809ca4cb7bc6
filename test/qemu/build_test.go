package qemu

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

var errNoWorkloads = errors.New("workloads/Makefile has no cross target yet")

// buildPMC builds pmc for g into out the way `make cross` does (static, -trimpath), one
// guest at a time, so that a build failure on one architecture does not hide the other.
// PMC_QEMU_PMC_<GUEST> (e.g. PMC_QEMU_PMC_ARMV7=/tmp/pmc-armv7) uses a prebuilt binary instead.
func buildPMC(root string, g Guest, out string) error {
	if pre := os.Getenv("PMC_QEMU_PMC_" + strings.ToUpper(g.wlDir())); pre != "" {
		b, err := os.ReadFile(pre)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o755)
	}
	_, err := goBuild(root, g, "./cmd/pmc", out)
	return err
}

// buildWorkloads runs `make -C workloads cross` into out (BUILD=out: the cache directory, so
// rebuilds are incremental and nothing is written into the source tree).
func buildWorkloads(root, out string) error {
	mk, err := os.ReadFile(filepath.Join(root, "workloads", "Makefile"))
	if err != nil || !bytes.Contains(mk, []byte("\ncross:")) {
		return errNoWorkloads
	}
	return run(root, nil, "make", "--no-print-directory", "-C", "workloads", "BUILD="+out, "cross")
}

func run(dir string, env []string, name string, args ...string) error {
	c := exec.Command(name, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, Tail(out, 20))
	}
	return nil
}

// goBuild builds a static guest binary of package pkg (relative to root) for g.
func goBuild(root string, g Guest, pkg, out string) ([]byte, error) {
	env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + g.GOARCH, "GOARM=" + g.GOARM}
	if err := run(root, env, "go", "build", "-trimpath", "-o", out, pkg); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

// guestFiles builds and collects everything the guest's initramfs holds: /init, /bin/probe,
// /bin/cloop, /bin/clauncher, /bin/pmc (when it built) and the workloads (when they built).
func guestFiles(root, work, wlBuild string, g Guest, pmcErr, wlErr error) ([]File, error) {
	files := []File{CharDev("/dev/console", 5, 1), Dir("/proc"), Dir("/sys"), Dir("/tmp"), Dir("/bin")}
	for _, p := range []struct{ pkg, path string }{
		{"./test/qemu/guestinit", "/init"},
		{"./test/qemu/probe", "/bin/probe"},
	} {
		b, err := goBuild(root, g, p.pkg, filepath.Join(work, filepath.Base(p.path)))
		if err != nil {
			return nil, err
		}
		files = append(files, Exec(p.path, b))
	}
	for _, c := range []struct{ src, name string }{
		{"test/qemu/cloop/loop.c", "cloop"},
		{"test/qemu/claunch/launch.c", "clauncher"},
	} {
		out := filepath.Join(work, c.name)
		if err := run(root, nil, g.CC, "-static", "-O2", "-Wall", "-o", out, c.src); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		files = append(files, Exec("/bin/"+c.name, b))
	}
	files = append(files, Regular(metricsPath, []byte(metricsFile)))
	if pmcErr == nil {
		b, err := os.ReadFile(filepath.Join(work, "pmc"))
		if err != nil {
			return nil, err
		}
		files = append(files, Exec("/bin/pmc", b))
	}
	if wlErr == nil {
		dir := filepath.Join(wlBuild, g.wlDir())
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					return nil, err
				}
				files = append(files, Exec("/bin/"+e.Name(), b))
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// has reports whether the initramfs holds path.
func has(files []File, path string) bool {
	for _, f := range files {
		if f.Path == path {
			return true
		}
	}
	return false
}

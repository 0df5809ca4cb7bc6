package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Arch is the workloads' build directory name for this machine (uname -m).
var Arch = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "arm": "armv7l"}[runtime.GOARCH]

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// Root is the repository's top directory, found from the working directory of the test
// (a package directory) by looking for go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testenv: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Workload returns the path of the host build of a built-in workload ("loop",
// "matmul-novec"...). Binaries that `make workloads` built are used when they are up to date
// (make -q); otherwise all of them are built once into a temporary directory with the
// workloads' Makefile (BUILD=DIR), with make's output kept out of the test log unless the
// build fails.
// The test skips when make or a C compiler is missing and CI is not set.
func Workload(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() { buildDir, buildErr = locate() })
	if buildErr != nil {
		if errors.Is(buildErr, exec.ErrNotFound) {
			Missing(t, "cannot build the workloads: %v", buildErr)
		}
		t.Fatal(buildErr)
	}
	p := filepath.Join(buildDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("workload %s: %v", name, err)
	}
	return p
}

func locate() (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	src := filepath.Join(root, "workloads")
	for _, tool := range []string{"make", "cc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s not found: %w", tool, err)
		}
	}
	// make -q exits 0 when every host binary in build/ is newer than its sources.
	if exec.Command("make", "-q", "-s", "-C", src, "host").Run() == nil {
		return filepath.Join(src, "build", Arch), nil
	}
	tmp, err := os.MkdirTemp("", "pmc-workloads-")
	if err != nil {
		return "", err
	}
	// The directory outlives the test binary's tests on purpose (several tests share it);
	// it is small and in the temporary directory.
	cmd := exec.Command("make", "-s", "-C", src, "BUILD="+tmp, "host")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the workloads: %v\n%s", err, out)
	}
	return filepath.Join(tmp, Arch), nil
}

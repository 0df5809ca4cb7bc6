package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// cliModeEnv makes the test binary behave as the pmc command itself, so tests can run pmc as
// a separate process (signals, exit statuses) without building it. As the launch shim it
// needs nothing: package launch's init handles that before TestMain runs.
const cliModeEnv = "PMC_CLI_TEST_AS_PMC"

func TestMain(m *testing.M) {
	if os.Getenv(cliModeEnv) == "1" {
		os.Unsetenv(cliModeEnv)
		os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// pmcCmd is an exec.Cmd running pmc with args (the test binary in pmc mode).
func pmcCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), cliModeEnv+"=1")
	return cmd
}

// workload returns the path of a built-in workload, building them if needed.
func workload(t *testing.T, name string) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "workloads"))
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "arm": "armv7l"}[runtime.GOARCH]
	p := filepath.Join(dir, "build", arch, name)
	if _, err := os.Stat(p); err != nil {
		out, err := exec.Command("make", "-s", "-C", dir).CombinedOutput()
		if err != nil {
			t.Fatalf("building workloads: %v\n%s", err, out)
		}
	}
	return p
}

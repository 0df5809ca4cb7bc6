package cli

import (
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
)

// cliModeEnv makes the test binary behave as the pmc command itself, so tests can run pmc as
// a separate process (signals, exit statuses) without building it. As the launch shim it
// needs nothing: package launch's init handles that before TestMain runs.
const cliModeEnv = "PMC_CLI_TEST_AS_PMC"

// seccompDenyEnv makes pmc (in cliModeEnv) run under a seccomp filter refusing perf_event_open.
const seccompDenyEnv = "PMC_CLI_TEST_SECCOMP_DENY"

func TestMain(m *testing.M) {
	if os.Getenv(cliModeEnv) == "1" {
		os.Unsetenv(cliModeEnv)
		if os.Getenv(seccompDenyEnv) == "1" { // as in a container whose profile refuses perf
			if err := unix.DenyPerfEventOpen(unix.EPERM); err != nil {
				os.Stderr.WriteString("seccomp: " + err.Error() + "\n")
				os.Exit(99)
			}
		}
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

// workload returns the path of a built-in workload (built outside the tree if needed).
func workload(t *testing.T, name string) string {
	t.Helper()
	return testenv.Workload(t, name)
}

// machine and platform are what the in-process runs of the tests see (testRun's env): this
// machine, or the snapshot a test swaps in for its duration (onHost).
var (
	machine  = host.Live
	platform = host.LivePlatform
)

// testRun runs pmc in-process like Run, except that a launched workload reads and writes
// /dev/null: its output must not reach the test log.
func testRun(args []string, stdout, stderr io.Writer) int {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		panic(err)
	}
	defer null.Close()
	return run(args, &env{stdout: stdout, stderr: stderr, workload: [3]*os.File{null, null, null},
		machine: machine, platform: platform})
}

package armv6

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/testenv"
)

var (
	buildOnce          sync.Once
	buildDir           string
	armv6, native      string
	buildErr           error
	buildOut           []byte
	repo               = filepath.Join("..", "..")
	fake               = filepath.Join(repo, "internal", "cli", "testdata", "fake")
	perfData           = filepath.Join(repo, "internal", "perfdata", "testdata")
	errNoQEMU          = "qemu-arm is not installed (Debian: qemu-user; scripts/deps.sh installs it)"
	onX86              = runtime.GOARCH == "amd64" || runtime.GOARCH == "386"
	commandTimeout     = 5 * time.Minute // mem under TCG on a loaded machine
	emulatorLaunchText = "pmc cannot start itself again as the launch shim"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// build builds pmc for armv6 (with its symbol table, for the instruction check) and for this
// machine, once.
func build(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds pmc twice (-short)")
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "pmc-armv6"); buildErr != nil {
			return
		}
		armv6, native = filepath.Join(buildDir, "pmc-armv6"), filepath.Join(buildDir, "pmc")
		for _, b := range []struct {
			out string
			env []string
		}{{armv6, []string{"GOARCH=arm", "GOARM=6"}}, {native, nil}} {
			cmd := exec.Command("go", "build", "-trimpath", "-o", b.out, "./cmd/pmc")
			cmd.Dir = repo
			cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), b.env...)
			if buildOut, buildErr = cmd.CombinedOutput(); buildErr != nil {
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
}

// need skips the test without tool, or fails it in CI, where scripts/deps.sh installed it.
func need(t *testing.T, tool, why string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		testenv.Missing(t, "%s", why)
	}
	return p
}

// result is one run of pmc.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the armv6 pmc under qemu-arm -cpu arm1176 (or, with bin set, another binary).
func run(t *testing.T, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if bin == armv6 {
		cmd = exec.CommandContext(ctx, "qemu-arm", append([]string{"-cpu", "arm1176", armv6}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, bin, args...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
		if !ee.Exited() {
			t.Fatalf("pmc %s: %v (a signal: SIGILL is an instruction the ARM1176 does not have)\n%s", strings.Join(args, " "), err, r.stderr)
		}
	} else if err != nil {
		t.Fatalf("pmc %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("pmc %s panicked:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// TestArmv6Commands runs pmc's commands as a Pi 1 or Zero would (but on this machine's
// kernel, through the emulator).
func TestArmv6Commands(t *testing.T) {
	need(t, "qemu-arm", errNoQEMU)
	build(t)
	for _, c := range []struct {
		args []string
		code int
		want []string // in stdout+stderr
	}{
		{[]string{"version"}, 0, []string{"linux/arm"}},
		{[]string{"list"}, 0, []string{"Software events", "task-clock"}},
		{[]string{"list", "--cpu", "arm1176"}, 0, []string{"Table:    arm1176 (ARM1176JZF-S", "Counters: 2 + cycle counter"}},
		{[]string{"explain", "--cpu", "arm1176", "INSTR_EXEC"}, 0, []string{"raw event 0x07, perf syntax r7", "Generic names counted with it on arm1176: instructions."}},
		{[]string{"explain", "task-clock"}, 0, []string{"software event"}},
		{[]string{"mem", "--max", "1M"}, 0, []string{"tiers (runs of sizes with about the same latency", "L1 "}},
	} {
		r := run(t, armv6, c.args...)
		if r.code != c.code {
			t.Errorf("pmc %s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), r.code, c.code, r.stdout, r.stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout+r.stderr, w) {
				t.Errorf("pmc %s: no %q in\n%s%s", strings.Join(c.args, " "), w, r.stdout, r.stderr)
			}
		}
	}
}

// TestArmv6CountingUnderEmulation: qemu-arm passes no perf_event_open and cannot run the
// shim without binfmt_misc, so stat and compare of software events cannot count here.
// They must end with one line saying why (exit status 1), and pmc doctor must name the
// emulator, not the kernel. On an ARM machine's own kernel this does not apply.
func TestArmv6CountingUnderEmulation(t *testing.T) {
	need(t, "qemu-arm", errNoQEMU)
	if !onX86 {
		t.Skip("pmc runs under user-mode emulation only on a machine of another family (x86 here)")
	}
	build(t)
	for _, args := range [][]string{
		{"stat", "-e", "task-clock,page-faults", "--", "/bin/true"},
		{"compare", "-r", "2", "-e", "task-clock", "/bin/true"},
	} {
		r := run(t, armv6, args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || len(lines) != 1 || !strings.Contains(lines[0], emulatorLaunchText) {
			t.Errorf("pmc %s: exit %d, stderr %q: want exit 1 and one line saying pmc runs under an emulator",
				strings.Join(args, " "), r.code, r.stderr)
		}
	}
	r := run(t, armv6, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "hardware counting does NOT work here: pmc (linux/arm) runs under a user-mode emulator") ||
		strings.Contains(r.stdout, "built without CONFIG_PERF_EVENTS") {
		t.Errorf("pmc doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestArmv6SameOutput: with nothing of the machine in play (the fake backend and recorded
// perf.data files), the armv6 build prints exactly what this machine's build prints: the
// counting arithmetic, metrics, perf.data decoding and symbolization hold on 32-bit ARM.
func TestArmv6SameOutput(t *testing.T) {
	need(t, "qemu-arm", errNoQEMU)
	build(t)
	for _, args := range [][]string{
		{"stat", "--fake", filepath.Join(fake, "cortex-a5.json"), "--fake-machine", filepath.Join(fake, "machine-cortex-a5.json"), "--", "true"},
		{"stat", "--json", "--fake", filepath.Join(fake, "multiplexed.json"), "--fake-machine", filepath.Join(fake, "machine-arm1176.json"), "--", "true"},
		{"stat", "--fake", filepath.Join(fake, "interval.json"), "--fake-machine", filepath.Join(fake, "machine-cortex-a7.json"), "-I", "100", "--", "true"},
		{"report", "-i", filepath.Join(perfData, "callgraph.data"), "--stdio"},
		{"report", "-i", filepath.Join(perfData, "multi.data"), "--stdio", "--sort", "comm,dso,sym"},
	} {
		a, n := run(t, armv6, args...), run(t, native, args...)
		if a != n {
			t.Errorf("pmc %s differs on armv6 (exit %d) from %s (exit %d):\n--- armv6\n%s%s--- %s\n%s%s",
				strings.Join(args, " "), a.code, runtime.GOARCH, n.code, a.stdout, a.stderr, runtime.GOARCH, n.stdout, n.stderr)
		}
		if out := n.stdout + n.stderr; n.code != 0 || !strings.ContainsAny(out, "0123456789") {
			t.Errorf("pmc %s: exit %d, output %q: the comparison proves nothing", strings.Join(args, " "), n.code, out)
		}
	}
}

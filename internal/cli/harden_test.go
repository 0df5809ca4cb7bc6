package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// These tests reproduce what an adversarial test of pmc found (issue 25), one each.

// nobodyPMC copies the test binary where user nobody can run it and returns a function that
// runs it as nobody in dir (which nobody must be able to enter). Skips unless root with setpriv.
func nobodyPMC(t *testing.T) func(dir string, args ...string) (string, int) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Getuid() != 0 {
		t.Skip("needs root and setpriv to switch to an unprivileged user")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.MkdirTemp("", "pmc-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.Chmod(home, 0o755)
	bin := filepath.Join(home, "pmc")
	data, _ := os.ReadFile(self)
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// Under go test -cover the binary writes coverage data at exit to GOCOVERDIR, which nobody
	// cannot write: give it a directory of its own so that its stderr holds only pmc's lines.
	cover := filepath.Join(home, "cover")
	if err := os.Mkdir(cover, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(cover, 0o777)
	return func(dir string, args ...string) (string, int) {
		if dir == "" {
			dir = home
		}
		cmd := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", bin}, args...)...)
		cmd.Env = append(os.Environ(), cliModeEnv+"=1", "GOCOVERDIR="+cover)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
}

// TestReadOnlyOutput: `pmc stat -o ro` where ro is a 0444 file its user owns is refused as
// perf refuses it (permission denied, the file untouched); it was replaced by a renamed copy.
// As root perf writes it (root passes the mode bits) and so does pmc, keeping the mode.
func TestReadOnlyOutput(t *testing.T) {
	asNobody := nobodyPMC(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	ro := filepath.Join(dir, "ro")
	write := func(uid int) {
		t.Helper()
		os.Remove(ro)
		if err := os.WriteFile(ro, []byte("old\n"), 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(ro, uid, uid); err != nil {
			t.Fatal(err)
		}
		os.Chmod(ro, 0o444)
	}
	content := func() string { b, _ := os.ReadFile(ro); return string(b) }
	perf, _ := exec.LookPath("perf")

	// As nobody, the owner of the 0444 file.
	write(65534)
	out, code := asNobody(dir, "stat", "-e", "task-clock", "-o", "ro", "--", "true")
	if code != 1 || !strings.Contains(out, "cannot write ro: permission denied") || content() != "old\n" {
		t.Errorf("as its owner (nobody): exit %d, file %q:\n%s", code, content(), out)
	}
	if perf != "" {
		write(65534)
		p := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", perf, "stat", "-e", "task-clock", "-o", "ro", "true")
		p.Dir = dir
		pout, err := p.CombinedOutput()
		if err == nil || !strings.Contains(string(pout), "Permission denied") || content() != "old\n" {
			t.Errorf("perf as nobody was expected to refuse too: %v %s", err, pout)
		}
	}

	// As root: written, the mode kept (perf writes through fopen("w") the same way).
	write(0)
	var stdout, stderr strings.Builder
	if code := testRun([]string{"stat", "-e", "task-clock", "-o", ro, "--", "true"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(content(), "task-clock") {
		t.Errorf("as root: exit %d, file %q: %s", code, content(), stderr.String())
	}
	if fi, err := os.Stat(ro); err != nil || fi.Mode().Perm() != 0o444 {
		t.Errorf("as root: mode %v, want 0444 kept (%v)", fi.Mode(), err)
	}
	if perf != "" {
		write(0)
		if pout, err := exec.Command(perf, "stat", "-e", "task-clock", "-o", ro, "true").CombinedOutput(); err != nil ||
			!strings.Contains(content(), "task-clock") {
			t.Errorf("perf as root was expected to write the 0444 file: %v %s", err, pout)
		}
	}
}

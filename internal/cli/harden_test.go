package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/symbol"
	"github.com/pmc-tools/pmc/internal/testenv"
	"github.com/pmc-tools/pmc/internal/unix"
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
	perf := testenv.HaveTool(t, "perf", "perf's refusal of the 0444 file not compared with pmc's")

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

// TestHugeElapsedRefused: a saved result claiming 1e308 seconds is not a measurement: pmc show
// refuses it in one line instead of printing a 309-digit number.
func TestHugeElapsedRefused(t *testing.T) {
	doc := `{"schema":"pmc.stat/v1","mode":"launch","scaled":true,"repeat":1,"runs":[{"index":0,` +
		`"elapsed_sec":%s,"exit_status":0,"counts":[{"event":"task-clock","group":0,"cpu":-1,` +
		`"status":"counted","raw":100,"scaled":%s,"time_enabled_ns":100,"time_running_ns":100,"unit":"msec"}]}],"elapsed_sec":%s}`
	dir := t.TempDir()
	for _, c := range []struct{ run, scaled, top, want string }{
		{"1", "100", "1e308", "elapsed_sec"},
		{"1e308", "100", "1", "elapsed_sec"},
		{"1", "1e308", "1", "scaled"},
	} {
		p := filepath.Join(dir, "r.json")
		os.WriteFile(p, []byte(fmtDoc(doc, c.run, c.scaled, c.top)), 0o644)
		out, errs, code := runPMC("show", p)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%+v: exit %d, stdout %d bytes, stderr %q", c, code, len(out), errs)
		}
	}
}

func fmtDoc(doc string, args ...string) string {
	for _, a := range args {
		doc = strings.Replace(doc, "%s", a, 1)
	}
	return doc
}

// TestPercentLimitNaN: --percent-limit NaN (and Inf) is refused by pmc report and pmc annotate,
// as an out-of-range number is; NaN compared false with both bounds and was accepted.
func TestPercentLimitNaN(t *testing.T) {
	for _, cmd := range []string{"report", "annotate"} {
		for _, v := range []string{"NaN", "nan", "+Inf", "-1", "101"} {
			_, errs, code := runPMC(cmd, "-i", filepath.Join(t.TempDir(), "missing.data"), "--percent-limit", v)
			if code != 1 || !strings.Contains(errs, "--percent-limit") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("%s --percent-limit %s: exit %d %q", cmd, v, code, errs)
			}
		}
	}
}

// TestCompletionUnknownShell: `pmc completion nosuchshell` is an error naming the shells (it
// printed the help and exited 0); `pmc completion bash` still works.
func TestCompletionUnknownShell(t *testing.T) {
	out, errs, code := runPMC("completion", "nosuchshell")
	if code != 1 || out != "" || !strings.Contains(errs, `"nosuchshell"`) || !strings.Contains(errs, "bash") {
		t.Errorf("completion nosuchshell: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if out, _, code := runPMC("completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d", code)
	}
}

// TestBadModifierColumn: `-e cycles:z` points at the modifier like every other event syntax
// error ("event syntax error at column 8"); it had no column at all.
func TestBadModifierColumn(t *testing.T) {
	for _, c := range []struct{ ev, want string }{
		{"cycles:z", `event syntax error at column 8 of "cycles:z": bad modifier "z" after event "cycles"`},
		{"task-clock,cycles:ux", `event syntax error at column 19 of "task-clock,cycles:ux": bad modifier "ux" after event "cycles"`},
		{"r1a:q", `event syntax error at column 5 of "r1a:q": bad modifier "q"`},
		{"L1-dcache-loads:q", `at column 17 of "L1-dcache-loads:q": bad modifier "q"`},
	} {
		_, errs, code := runPMC("stat", "-e", c.ev, "--", "true")
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("-e %s: exit %d %q, want %q", c.ev, code, errs, c.want)
		}
	}
}

// TestBadArchiveBesideRecording (issue 25 item 2): FILE.pmcsym beside a recording that is a
// FIFO, a zip bomb or garbage is a one-line warning, and the report is the one without it; a
// FIFO blocked pmc report forever, a 1.5 GiB bomb took it past 4.5 GB.
func TestBadArchiveBesideRecording(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(perfDataDir, "cpuclock.data"))
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.data")
	os.WriteFile(plain, src, 0o644)
	want, wantErrs, code := runReportCmd(t, "-i", plain)
	if code != 0 {
		t.Fatalf("report without an archive: exit %d: %s", code, wantErrs)
	}
	// A valid table that expands 400 times: only the bounds refuse it.
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	w, _ := zw.Create("dso/0")
	w.Write([]byte("pmcsym v1\npath /bomb\nkind dyn\n"))
	chunk := bytes.Repeat([]byte("sym 1000 10 spin\n"), 4096)
	for n := 0; n < 64<<20; n += len(chunk) {
		w.Write(chunk)
	}
	zw.Close()
	for _, c := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"fifo", func(p string) error { return unix.Mkfifo(p, 0o644) }, "not a regular file"},
		{"bomb", func(p string) error { return os.WriteFile(p, bomb.Bytes(), 0o644) }, "times its compressed size"},
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("PK\x03\x04garbage"), 0o644) }, "symbol archive"},
	} {
		data := filepath.Join(dir, c.name+".data")
		os.WriteFile(data, src, 0o644)
		if err := c.make(symbol.ArchivePath(data)); err != nil {
			t.Fatal(err)
		}
		// In a process of its own: a report blocked on the FIFO is killed, not left hanging.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := pmcCmd(t, "report", "-i", data)
		cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
		cmd.Env = append(os.Environ(), cliModeEnv+"=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut {
			t.Errorf("%s: pmc report did not end in 2 minutes", c.name)
			continue
		}
		msg := stderr.String()
		first, rest, _ := strings.Cut(msg, "\n")
		if err != nil || !strings.Contains(first, c.want) || !strings.HasSuffix(first, "(ignored)") || rest != wantErrs {
			t.Errorf("%s: %v, stderr %q; want one warning with %q, then %q", c.name, err, msg, c.want, wantErrs)
		}
		if got := stdout.String(); got != want {
			t.Errorf("%s: the report differs from the one without an archive:\n%s\nwant:\n%s", c.name, got, want)
		}
	}
}

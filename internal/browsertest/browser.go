package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Browsers are the executable names tried, in order.
var Browsers = []string{"chromium", "chromium-browser", "google-chrome"}

// Browser returns the path of headless Chromium, skipping the test when there is none.
func Browser(t testing.TB) string {
	t.Helper()
	for _, b := range Browsers {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium: scripts/deps.sh installs it")
	}
	t.Skip("no chromium (apt-get install chromium)")
	return ""
}

func run(t testing.TB, htmlPath string, extra ...string) []byte {
	t.Helper()
	bin := Browser(t)
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=5000"}, extra...)
	args = append(args, "file://"+abs)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr)
	}
	return out
}

// DumpDOM loads the HTML file at htmlPath in headless Chromium, lets its scripts run, and
// returns the serialized DOM.
func DumpDOM(t testing.TB, htmlPath string) string {
	t.Helper()
	return string(run(t, htmlPath, "--dump-dom"))
}

// Screenshot renders the HTML file at htmlPath into a PNG of width x height pixels and
// returns the PNG's path (in the test's temporary directory).
func Screenshot(t testing.TB, htmlPath string, width, height int) string {
	t.Helper()
	png := filepath.Join(t.TempDir(), "screenshot.png")
	run(t, htmlPath, "--screenshot="+png, "--window-size="+itoa(width)+","+itoa(height), "--hide-scrollbars")
	if _, err := os.Stat(png); err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	return png
}

func itoa(n int) string {
	if n <= 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

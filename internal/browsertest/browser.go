package browsertest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/testenv"
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
	testenv.Missing(t, "no chromium (scripts/deps.sh installs it)")
	return ""
}

func run(t testing.TB, htmlPath string, extra ...string) []byte {
	t.Helper()
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runURL(t, "file://"+abs, extra...)
	return out
}

// runURL loads url in headless Chromium with extra flags and returns its stdout and stderr.
func runURL(t testing.TB, url string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	bin := Browser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=5000"}, extra...)
	args = append(args, url)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, errb.Bytes())
	}
	return out, errb.Bytes()
}

// Page is a page as headless Chromium left it: the DOM after its scripts ran, and every
// message it wrote to the console (console.log and console.error alike, uncaught
// exceptions, resources that failed to load).
type Page struct {
	DOM     string
	Console []string
}

// consoleLine is how Chromium logs a console message with --enable-logging=stderr --v=0:
// "[pid:tid:time:INFO:CONSOLE:12] "message", source: URL (12)" (older versions write
// "CONSOLE(12)").
var consoleLine = regexp.MustCompile(`:CONSOLE[:(]\d+\)?\] (.*)`)

// Load loads url (http: or file:) in headless Chromium, lets its scripts run, and returns
// the serialized DOM and the console's messages.
func Load(t testing.TB, url string) Page {
	t.Helper()
	out, errb := runURL(t, url, "--dump-dom", "--enable-logging=stderr", "--v=0")
	p := Page{DOM: string(out)}
	for _, l := range strings.Split(string(errb), "\n") {
		if m := consoleLine.FindStringSubmatch(l); m != nil {
			p.Console = append(p.Console, m[1])
		}
	}
	return p
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

package comparehtml

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

	"github.com/pmc-tools/pmc/internal/compare"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// sample is a comparison of two commands over three runs with one event, one multiplexed
// event and a metric whose operands were not measured together.
func sample() *compare.Comparison {
	c := &compare.Comparison{Source: "measured", Interleaved: true}
	for ci, label := range []string{"A", "B"} {
		cmd := compare.Command{Label: label, Command: []string{"./matmul", "--order", []string{"ijk", "ikj"}[ci]}, Backend: "fake"}
		for r := 0; r < 3; r++ {
			ns := uint64(1e9 * (1.5 - 0.5*float64(ci) + 0.01*float64(r)))
			cmd.Runs = append(cmd.Runs, compare.Run{Index: r, ElapsedSec: float64(ns) / 1e9, UserSec: float64(ns) / 1e9,
				Counts: []result.Count{
					{Event: "task-clock", CPU: -1, Status: result.Counted, Raw: ns, Scaled: float64(ns), Enabled: ns, Running: ns, Unit: "msec"},
					{Event: "instructions", CPU: -1, Status: result.Counted, Raw: 1e9, Scaled: 2e9, Enabled: 2, Running: 1},
				},
				Metrics: []result.Metric{{Name: "ratio", Value: 10 + float64(r+ci), CPU: -1, Valid: true, Together: false, Unit: "%"}}})
		}
		c.Commands = append(c.Commands, cmd)
	}
	compare.Build(c)
	return c
}

func TestPageSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// No network: nothing is fetched (the SVG namespace is an identifier, not a fetch).
	for _, bad := range []string{"<link", "src=", "@import", "url(", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page refers to something outside itself: %q", bad)
		}
	}
	// 5 quantities (wall, user, sys time, task-clock, instructions) + the ratio metric.
	if n := strings.Count(page, `<svg class="bars"`); n != 6 {
		t.Errorf("%d bar charts, want 6", n)
	}
	if n := strings.Count(page, `<circle class="run`); n != 6*6 {
		t.Errorf("%d run points, want 36 (6 charts x 2 commands x 3 runs)", n)
	}
}

// chromium is Debian's headless browser (scripts/deps.sh installs it).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Missing(t, "chromium is not installed (scripts/deps.sh installs it)")
	return ""
}

// headless runs chromium on the page with args (--dump-dom, --screenshot=...).
func headless(t *testing.T, page string, args ...string) []byte {
	t.Helper()
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	full := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + dir}, args...)
	cmd := exec.CommandContext(ctx, bin, append(full, "file://"+page)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return out
}

// TestPageInChromium renders the page in a real browser: the script ran (it counts the
// charts into data-ready), the DOM the browser built has every chart, bar, error bar and
// point, and a screenshot is taken (PMC_SCREENSHOT=FILE keeps it for a person to look at).
func TestPageInChromium(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "compare.html")
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(headless(t, page, "--dump-dom"))
	if !strings.Contains(dom, `data-ready="6 charts"`) {
		t.Errorf("the page's script did not run in chromium (no data-ready=\"6 charts\" on body)")
	}
	for _, c := range []struct {
		re   string
		want int
	}{
		{`<svg class="bars"`, 6},
		{`<rect class="bar"`, 12},              // a bar per command per chart
		{`<path class="errorbar"`, 12},         // ±sd: three runs each
		{`<circle class="run`, 36},             // every run
		{`<svg class="changes"`, 1},            // the deltas
		{`<circle class="pct"`, 5},             // a change per quantity for B but sys time (0 in A: no change)
		{`<line class="ci"`, 5},                // with its interval
		{`<text class="delta significant"`, 3}, // wall, user time, task-clock: B 1.5x faster; instructions equal; the ratio +10% within the noise
	} {
		if n := len(regexp.MustCompile(c.re).FindAllString(dom, -1)); n != c.want {
			t.Errorf("%s: %d in chromium's DOM, want %d", c.re, n, c.want)
		}
	}
	shot := filepath.Join(dir, "compare.png")
	headless(t, page, "--screenshot="+shot, "--window-size=960,1400", "--hide-scrollbars")
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10000 {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
	if keep := os.Getenv("PMC_SCREENSHOT"); keep != "" {
		os.WriteFile(keep, png, 0o644)
	}
}

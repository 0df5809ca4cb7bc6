package browsertest

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDumpDOMRunsScripts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "page.html")
	page := `<!DOCTYPE html><html><body><div id="x">before</div>
<script>document.getElementById("x").textContent = "after " + (6 * 7);</script></body></html>`
	if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := DumpDOM(t, p)
	if !strings.Contains(dom, `<div id="x">after 42</div>`) {
		t.Errorf("the script's change is not in the DOM:\n%s", dom)
	}
	shot := Screenshot(t, p, 320, 200)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 320 || cfg.Height != 200 {
		t.Errorf("screenshot %dx%d, %v", cfg.Width, cfg.Height, err)
	}
}

// TestLoadReportsConsole: Load sees what a page says on the console (a message, an uncaught
// exception) and nothing from a page that says nothing, so a test can fail on any of it.
func TestLoadReportsConsole(t *testing.T) {
	dir := t.TempDir()
	write := func(name, page string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		return "file://" + p
	}
	noisy := write("noisy.html", `<!DOCTYPE html><html><body><div id="x">1</div><script>
console.error("boom " + (6 * 7)); document.getElementById("x").textContent = "2"; undefinedFunction();
</script></body></html>`)
	p := Load(t, noisy)
	if !strings.Contains(p.DOM, `<div id="x">2</div>`) {
		t.Errorf("the script did not run:\n%s", p.DOM)
	}
	all := strings.Join(p.Console, "\n")
	if len(p.Console) != 2 || !strings.Contains(all, `"boom 42"`) || !strings.Contains(all, "Uncaught ReferenceError: undefinedFunction is not defined") {
		t.Errorf("console: %q", p.Console)
	}
	if quiet := Load(t, write("quiet.html", `<!DOCTYPE html><html><body><p>ok</p></body></html>`)); len(quiet.Console) != 0 {
		t.Errorf("a quiet page's console: %q", quiet.Console)
	}
}

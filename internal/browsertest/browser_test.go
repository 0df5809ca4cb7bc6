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

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// hostileName is what the test program's function and file are renamed to: a window title
// (OSC 0, ended by BEL), clear screen and red text, as a hostile binary or recording could
// carry them.
const hostileName = "\x1b]0;pwned\x07\x1b[2J\x1b[31mRED"

// hostileProgram builds a program whose hot function's symbol name, and whose file name (so
// its comm and its DSO), hold terminal control sequences, and records it with pmc record.
// It returns the recording.
func hostileProgram(t *testing.T) (data, dir string) {
	t.Helper()
	cc := testenv.Tool(t, "cc")
	dir = t.TempDir()
	src := filepath.Join(dir, "hostile.c")
	// The placeholder is exactly as long as the name that replaces it in .strtab, .dynstr and
	// the DWARF strings: the ELF stays valid.
	placeholder := strings.Repeat("A", 40)
	prog := `#include <stdint.h>
__attribute__((noinline)) uint64_t spin` + placeholder + `(uint64_t n) {
	volatile uint64_t x = 0;
	for (uint64_t i = 0; i < n; i++) x += i;
	return x;
}
int main(void) { return (int)spin` + placeholder + `(100000000ull) & 1; }
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	built := filepath.Join(dir, "built")
	if out, err := exec.Command(cc, "-O1", "-g", "-o", built, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	elf, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	name := hostileName + strings.Repeat("_", len(placeholder)-len(hostileName))
	if bytes.Count(elf, []byte(placeholder)) == 0 {
		t.Fatal("the placeholder is not in the binary")
	}
	elf = bytes.ReplaceAll(elf, []byte(placeholder), []byte(name))
	bin := filepath.Join(dir, "x\x1b[31m")
	if err := os.WriteFile(bin, elf, 0o755); err != nil {
		t.Fatal(err)
	}
	data = filepath.Join(dir, "perf.data")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"record", "-e", "cpu-clock", "-F", "2000", "-o", data, "--", bin}, &stdout, &stderr); code != 0 {
		t.Skipf("pmc record exit %d (sampling not allowed here?): %s", code, stderr.String())
	}
	return data, dir
}

// controlFree reports the first control character of s other than newline and tab.
func controlFree(s string) (rune, bool) {
	for _, c := range s {
		if unicode.IsControl(c) && c != '\n' && c != '\t' {
			return c, false
		}
	}
	return 0, true
}

// TestHostileNamesInText (issue 25 item 3): symbol names, program names and DSO paths that
// hold terminal control sequences are printed escaped ("\x1b[31m") by every text output of
// pmc report, pmc annotate and pmc diff, standard error included; they were printed raw, so
// a hostile binary or recording could retitle and clear the user's terminal.
func TestHostileNamesInText(t *testing.T) {
	data, dir := hostileProgram(t)
	for _, args := range [][]string{
		{"report", "-i", data},
		{"report", "-i", data, "--sort", "comm,dso,sym", "-g"},
		{"report", "-i", data, "--children"},
		{"report", "-i", data, "--sort", "sym,srcline"},
		{"report", "-i", data, "--folded"},
		{"annotate", "-i", data},
		{"annotate", "-i", data, "--no-source"},
		{"diff", data, data},
	} {
		var stdout, stderr bytes.Buffer
		code := testRun(args, &stdout, &stderr)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args[:len(args)-1], code, stderr.String())
			continue
		}
		for what, s := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			if c, ok := controlFree(s); !ok {
				t.Errorf("pmc %s: %s holds control character %q:\n%q", args[0], what, c, s)
			}
		}
		if !strings.Contains(stdout.String(), `\x1b[31m`) {
			t.Errorf("pmc %v: the hostile names are not shown escaped:\n%q", args, stdout.String())
		}
	}
	// The binary gone: the warnings and the error name it, escaped.
	if err := os.Rename(filepath.Join(dir, "x\x1b[31m"), filepath.Join(dir, "gone")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"report", "annotate"} {
		var stdout, stderr bytes.Buffer
		testRun([]string{cmd, "-i", data}, &stdout, &stderr)
		if c, ok := controlFree(stderr.String()); !ok || !strings.Contains(stderr.String(), `no symbols for `+dir+`/x\x1b[31m`) {
			t.Errorf("pmc %s without the binary: control character %q in:\n%q", cmd, c, stderr.String())
		}
	}
	os.Rename(filepath.Join(dir, "gone"), filepath.Join(dir, "x\x1b[31m"))

	// A source file whose lines hold control sequences: annotate shows them escaped too.
	if err := os.WriteFile(filepath.Join(dir, "hostile.c"), []byte(strings.Repeat("\x1b[2J\x1b]0;src\x07\n", 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"annotate", "-i", data}, &stdout, &stderr); code != 0 {
		t.Fatalf("annotate: exit %d: %s", code, stderr.String())
	}
	if c, ok := controlFree(stdout.String()); !ok || !strings.Contains(stdout.String(), `\x1b]0;src\a`) {
		t.Errorf("annotate of hostile source lines: control character %q:\n%q", c, stdout.String())
	}
}

// TestHostileSavedCompare: pmc compare of saved pmc.stat/v1 files prints their command and
// event names escaped, as pmc show does (it printed them raw).
func TestHostileSavedCompare(t *testing.T) {
	doc := `{"schema":"pmc.stat/v1","mode":"launch","command":["x\u001b[31mX"],"scaled":true,"repeat":1,` +
		`"runs":[{"index":0,"elapsed_sec":1,"exit_status":0,"counts":[{"event":"task-clock\u001b]0;t\u0007","group":0,` +
		`"cpu":-1,"status":"counted","raw":100,"scaled":100,"time_enabled_ns":100,"time_running_ns":100,"unit":"msec"}]}],"elapsed_sec":1}`
	p := filepath.Join(t.TempDir(), "saved.json")
	os.WriteFile(p, []byte(doc), 0o644)
	out, errs, code := runPMC("compare", p, p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if c, ok := controlFree(out + errs); !ok || !strings.Contains(out, `x\x1b[31mX`) || !strings.Contains(out, `task-clock\x1b]0;t\a`) {
		t.Errorf("control character %q in:\n%q", c, out+errs)
	}
}

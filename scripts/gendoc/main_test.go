package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/cli"
	"github.com/pmc-tools/pmc/internal/manpage"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// TestPagesSayWhatHelpSays generates every page, reads it with man -l as a user would (and
// groff -ww), and checks that each flag line of the command's --help is in it word for word.
func TestPagesSayWhatHelpSays(t *testing.T) {
	for _, tool := range []string{"man", "groff"} { // Debian's man-db and groff-base
		testenv.Tool(t, tool)
	}
	dir := t.TempDir()
	if err := run(dir, "0.0.0-test", "2026-01-02"); err != nil {
		t.Fatal(err)
	}
	root := cli.Command()
	manpage.Complete(root)
	pages := manpage.Pages(root)
	if len(pages) < 14 {
		t.Fatalf("%d pages: want pmc and each of its 13 commands at least", len(pages))
	}
	for _, c := range pages {
		name := manpage.Name(c)
		file := filepath.Join(dir, "man1", name+".1")
		if out, err := exec.Command("groff", "-ww", "-z", "-man", file).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("groff -ww %s: %v %s", name, err, out)
		}
		cmd := exec.Command("man", "--warnings", "-l", file)
		cmd.Env = append(os.Environ(), "MANWIDTH=80", "LC_ALL=C.UTF-8", "MAN_KEEP_FORMATTING=")
		var out, errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errs
		if err := cmd.Run(); err != nil || errs.Len() > 0 {
			t.Errorf("man -l %s: %v %s", name, err, errs.String())
			continue
		}
		page := words(out.String())

		args := append(strings.Fields(c.CommandPath())[1:], "--help")
		var help, herr bytes.Buffer
		if code := cli.Run(args, &help, &herr); code != 0 {
			t.Fatalf("pmc %s: exit %d: %s", strings.Join(args, " "), code, herr.String())
		}
		lines := flagLines(help.String())
		if c.HasAvailableFlags() && len(lines) == 0 {
			t.Errorf("pmc %s: no flag lines found in:\n%s", strings.Join(args, " "), help.String())
		}
		for _, l := range lines {
			if !strings.Contains(page, l) {
				t.Errorf("%s.1 lacks --help's flag line %q", name, l)
			}
		}
		if want := words(name + " - " + c.Short); !strings.Contains(page, want) {
			t.Errorf("%s.1 lacks its NAME line %q", name, want)
		}
	}
}

// flagLines returns the entries under --help's "Flags:" and "Global Flags:", each with its
// continuation lines and its spacing folded into single spaces.
func flagLines(help string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		switch {
		case l == "Flags:" || l == "Global Flags:":
			in = true
		case strings.TrimSpace(l) == "":
			in = false
		case in && strings.HasPrefix(strings.TrimSpace(l), "-"):
			out = append(out, words(l))
		case in && len(out) > 0:
			out[len(out)-1] += " " + words(l)
		}
	}
	return out
}

func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestCompletionsAreCobras checks that the scripts written are the ones `pmc completion SHELL`
// prints: the package installs what the binary would generate.
func TestCompletionsAreCobras(t *testing.T) {
	dir := t.TempDir()
	if err := run(dir, "0.0.0-test", "2026-01-02"); err != nil {
		t.Fatal(err)
	}
	for shell, file := range map[string]string{"bash": "pmc.bash", "zsh": "_pmc", "fish": "pmc.fish"} {
		var out, errs bytes.Buffer
		if code := cli.Run([]string{"completion", shell}, &out, &errs); code != 0 {
			t.Fatalf("pmc completion %s: exit %d: %s", shell, code, errs.String())
		}
		got, err := os.ReadFile(filepath.Join(dir, "completion", file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, out.Bytes()) || len(got) < 1000 {
			t.Errorf("completion/%s (%d bytes) differs from pmc completion %s (%d bytes)", file, len(got), shell, out.Len())
		}
	}
}

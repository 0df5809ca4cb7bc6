// Command gendoc writes pmc's man pages and shell completion scripts from pmc's own command
// definitions (internal/cli), so they say what --help says. make man, make install and
// make release run it; it is not part of the pmc binary.
//
//	go run ./scripts/gendoc -out DIR -version V -date YYYY-MM-DD
//
// writes DIR/man1/pmc.1, DIR/man1/pmc-stat.1, ... and DIR/completion/pmc.bash, _pmc (zsh)
// and pmc.fish, the scripts `pmc completion SHELL` prints.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pmc-tools/pmc/internal/cli"
	"github.com/pmc-tools/pmc/internal/manpage"
)

func main() {
	out := flag.String("out", "", "directory to write man1/ and completion/ into")
	version := flag.String("version", "", "pmc's version, printed in the pages' footer")
	date := flag.String("date", "", "the source's date (YYYY-MM-DD), printed in the pages' footer")
	flag.Parse()
	if *out == "" || *version == "" || *date == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gendoc -out DIR -version V -date YYYY-MM-DD")
		os.Exit(2)
	}
	if err := run(*out, *version, *date); err != nil {
		fmt.Fprintf(os.Stderr, "gendoc: %v\n", err)
		os.Exit(1)
	}
}

func run(out, version, date string) error {
	man, comp := filepath.Join(out, "man1"), filepath.Join(out, "completion")
	for _, d := range []string{man, comp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	root := cli.Command()
	manpage.Complete(root)
	h := manpage.Header{Section: "1", Date: date, Source: "pmc " + version, Manual: "pmc manual"}
	if _, err := manpage.WriteTree(man, root, h); err != nil {
		return err
	}
	// The same calls as cobra's completion command (with descriptions, its default).
	scripts := map[string]func(*bytes.Buffer) error{
		"pmc.bash": func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) },
		"_pmc":     func(b *bytes.Buffer) error { return root.GenZshCompletion(b) },
		"pmc.fish": func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) },
	}
	for name, gen := range scripts {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(comp, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

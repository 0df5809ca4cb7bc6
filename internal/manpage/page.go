package manpage

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Header is what every page's .TH line says besides its name.
type Header struct {
	Section string // "1"
	Date    string // the source's date, "2026-11-21" (not the build's: pages are reproducible)
	Source  string // the footer's left side: "pmc 0.2.0"
	Manual  string // the header's centre: "pmc manual"
}

// Complete adds what cobra adds to a command tree only when it executes: the help and version
// flags, and the help and completion commands, so the pages list what --help lists.
func Complete(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// Pages returns the commands that get a page: root and every available subcommand below it,
// in --help's order (help itself and hidden commands have none).
func Pages(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			out = append(out, Pages(c)...)
		}
	}
	return out
}

// Name is a command's page name: its path with '-' for spaces ("pmc-stat").
func Name(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// WriteTree writes every page of root into dir as NAME.SECTION and returns their paths.
func WriteTree(dir string, root *cobra.Command, h Header) ([]string, error) {
	var paths []string
	for _, c := range Pages(root) {
		var b strings.Builder
		if err := Write(&b, c, h); err != nil {
			return nil, err
		}
		p := filepath.Join(dir, Name(c)+"."+h.Section)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Write writes c's page.
func Write(w io.Writer, c *cobra.Command, h Header) error {
	var b strings.Builder
	name := Name(c)
	b.WriteString(`.\" Generated from pmc's command definitions by scripts/gendoc; do not edit.` + "\n")
	fmt.Fprintf(&b, ".TH %s %s %s %s %s\n", quoteArg(strings.ToUpper(name)), quoteArg(h.Section),
		quoteArg(h.Date), quoteArg(h.Source), quoteArg(h.Manual))
	// Event names, flags and paths are not to be hyphenated, and ragged right reads better
	// than stretched spaces for them.
	b.WriteString(".nh\n.ad l\n")

	b.WriteString(".SH NAME\n")
	b.WriteString(textLine(name+" - "+c.Short) + "\n")

	b.WriteString(".SH SYNOPSIS\n")
	for i, u := range usageLines(c) {
		if i > 0 {
			b.WriteString(".br\n")
		}
		b.WriteString(`\fB` + escape(c.CommandPath()) + `\fR`)
		if rest := strings.TrimPrefix(u, c.CommandPath()); rest != "" {
			b.WriteString(escape(rest))
		}
		b.WriteString("\n")
	}

	b.WriteString(".SH DESCRIPTION\n")
	if c.Long != "" {
		prose(&b, c.Long)
	} else {
		prose(&b, c.Short)
	}

	if subs := available(c); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, s := range subs {
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR(%s)\n%s\n", escape(Name(s)), h.Section, textLine(s.Short))
		}
	}
	options(&b, "OPTIONS", c.NonInheritedFlags())
	options(&b, "OPTIONS INHERITED FROM "+strings.ToUpper(c.Root().Name()), c.InheritedFlags())

	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n")
		prose(&b, c.Example)
	}

	var see []string
	if c.HasParent() {
		see = append(see, Name(c.Parent()))
	}
	for _, s := range available(c) {
		see = append(see, Name(s))
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, s := range see {
			sep := ","
			if i == len(see)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "\\fB%s\\fR(%s)%s\n", escape(s), h.Section, sep)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// usageLines are the lines under --help's "Usage:".
func usageLines(c *cobra.Command) []string {
	var out []string
	if c.Runnable() {
		out = append(out, c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		out = append(out, c.CommandPath()+" [command]")
	}
	return out
}

func available(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			out = append(out, s)
		}
	}
	return out
}

// options writes one .TP entry per visible flag: the tag and the text are pflag's own line
// for that flag (what --help prints), split where pflag puts its column gap.
func options(b *strings.Builder, title string, flags *pflag.FlagSet) {
	var entries [][2]string
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		tag, text := FlagHelp(f)
		entries = append(entries, [2]string{tag, text})
	})
	if len(entries) == 0 {
		return
	}
	b.WriteString(".SH " + title + "\n")
	for _, e := range entries {
		b.WriteString(".TP\n" + flagTag(e[0]) + "\n" + textLine(e[1]) + "\n")
	}
}

// FlagHelp returns a flag's line of --help in two parts: "-o, --output string" and its text
// with the default ("... (default 1)"), both as pflag prints them.
func FlagHelp(f *pflag.Flag) (tag, text string) {
	one := pflag.NewFlagSet("", pflag.ContinueOnError)
	one.AddFlag(f)
	line := strings.TrimLeft(one.FlagUsagesWrapped(0), " ")
	tag, text, _ = strings.Cut(line, "  ")
	// A usage text with line breaks continues on lines indented to the column.
	fields := strings.Fields(text)
	return tag, strings.Join(fields, " ")
}

// flagTag sets the names in bold and the value's placeholder in italics:
// \fB\-o\fR, \fB\-\-output\fR \fIstring\fR.
func flagTag(tag string) string {
	names, value, _ := strings.Cut(strings.Replace(tag, ", ", ",\x00", 1), " ")
	var parts []string
	for _, n := range strings.Split(names, ",\x00") {
		parts = append(parts, `\fB`+escape(n)+`\fR`)
	}
	out := strings.Join(parts, ", ")
	if value != "" {
		out += ` \fI` + escape(value) + `\fR`
	}
	return out
}

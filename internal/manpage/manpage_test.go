package manpage

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/testenv"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		`a\b`:              `a\eb`,
		"--no-inherit":     `\-\-no\-inherit`,
		"mean ± sd, 1 … 2": `mean \[u00B1] sd, 1 \[u2026] 2`,
		"a\tb":             "a b",
		"bell\a":           "bell",
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		".so /etc/passwd": `\&.so /etc/passwd`,
		"'br":             `\&'br`,
		"text. ":          "text.",
	} {
		if got := textLine(in); got != want {
			t.Errorf("textLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProse(t *testing.T) {
	var b strings.Builder
	prose(&b, "First line\nsecond line.\n\nNew paragraph:\n    pmc stat -e cycles\n\n    pmc report\nafter.\n")
	want := "First line\nsecond line.\n.PP\nNew paragraph:\n.RS 4\n.nf\npmc stat \\-e cycles\n.sp\npmc report\n.fi\n.RE\nafter.\n"
	if b.String() != want {
		t.Errorf("prose:\n%s\nwant:\n%s", b.String(), want)
	}
}

// tree is a command tree with the hard cases: text that looks like roff requests, a
// backslash, non-ASCII, a string default, an optional value, a hidden flag and command.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "a tool", Version: "1.0"}
	sub := &cobra.Command{
		Use:   "sub [options] FILE",
		Short: "do the sub thing",
		Long: "Sub reads FILE.\n.TH EVIL 1 \\\"injected\"\n'br not a request either\n" +
			"A backslash \\n stays, ± stays.\n\nSecond paragraph.",
		Example: "  tool sub -o out.txt in.txt",
		Run:     func(*cobra.Command, []string) {},
	}
	sub.Flags().StringP("output", "o", "-", "write to FILE")
	sub.Flags().String("report", "", "also write a report")
	sub.Flags().Lookup("report").NoOptDefVal = "r.txt"
	sub.Flags().Int("repeat", 1, "run N times")
	sub.Flags().Bool("secret", false, "not shown")
	_ = sub.Flags().MarkHidden("secret")
	root.AddCommand(sub, &cobra.Command{Use: "hidden", Hidden: true, Run: func(*cobra.Command, []string) {}})
	Complete(root)
	return root
}

func TestPages(t *testing.T) {
	root := tree()
	var names []string
	for _, c := range Pages(root) {
		names = append(names, Name(c))
	}
	got := strings.Join(names, " ")
	want := "tool tool-completion tool-completion-bash tool-completion-fish tool-completion-powershell tool-completion-zsh tool-sub"
	if got != want {
		t.Errorf("pages %q, want %q", got, want)
	}
}

func TestFlagHelpIsPflagsLine(t *testing.T) {
	sub, _, _ := tree().Find([]string{"sub"})
	for name, want := range map[string][2]string{
		"output": {"-o, --output string", `write to FILE (default "-")`},
		"report": {`--report string[="r.txt"]`, "also write a report"},
		"repeat": {"--repeat int", "run N times (default 1)"},
		"help":   {"-h, --help", "help for sub"},
	} {
		tag, text := FlagHelp(sub.Flags().Lookup(name))
		if tag != want[0] || text != want[1] {
			t.Errorf("%s: %q %q, want %q %q", name, tag, text, want[0], want[1])
		}
	}
}

// TestRendered renders the page with groff as man does: no warning, the injected lines are
// text, every visible flag is there and the hidden one is not.
func TestRendered(t *testing.T) {
	testenv.Tool(t, "groff") // Debian's groff-base, which man-db needs
	sub, _, _ := tree().Find([]string{"sub"})
	var page bytes.Buffer
	if err := Write(&page, sub, Header{Section: "1", Date: "2026-01-02", Source: "tool 1.0", Manual: "tool manual"}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("groff", "-ww", "-man", "-Tutf8", "-rLL=80n")
	cmd.Stdin = bytes.NewReader(page.Bytes())
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil || errs.Len() > 0 {
		t.Fatalf("groff: %v: %s", err, errs.String())
	}
	text := strings.Join(strings.Fields(stripOverstrike(out.String())), " ")
	for _, want := range []string{
		"TOOL-SUB(1)", "tool-sub - do the sub thing", "tool sub [options] FILE [flags]",
		`.TH EVIL 1 \"injected"`, "'br not a request either", `A backslash \n stays, ± stays.`,
		"-o, --output string write to FILE (default \"-\")", `--report string[="r.txt"] also write a report`,
		"--repeat int run N times (default 1)", "-h, --help help for sub",
		"EXAMPLES tool sub -o out.txt in.txt", "SEE ALSO tool(1)", "tool 1.0 2026-01-02",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("rendered page lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "secret") || strings.Contains(text, "EVIL(") {
		t.Errorf("rendered page shows a hidden flag or a request:\n%s", text)
	}
}

// stripOverstrike removes grotty's bold (c\bc) and underline (_\bc) sequences.
func stripOverstrike(s string) string {
	r := []rune(s)
	var out []rune
	for i := 0; i < len(r); i++ {
		if i+2 < len(r) && r[i+1] == '\b' {
			continue
		}
		if r[i] == '\b' {
			continue
		}
		out = append(out, r[i])
	}
	return string(out)
}

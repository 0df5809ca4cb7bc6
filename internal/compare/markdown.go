package compare

import (
	"io"
	"strconv"
	"strings"
)

// Markdown writes the comparison as a GitHub-flavoured Markdown table under its header.
func Markdown(w io.Writer, c *Comparison) error {
	var b strings.Builder
	for i, h := range c.Header() {
		if i == 0 {
			b.WriteString("**" + mdEscape(h) + "**\n\n")
			continue
		}
		b.WriteString("- " + mdEscape(strings.TrimSpace(h)) + "\n")
	}
	b.WriteString("\n")
	heads := append([]string(nil), columns...)
	heads[1] = "command"
	heads[6] = strconv.FormatFloat(100*c.Confidence, 'g', -1, 64) + "% CI"
	row := func(cells []string) {
		for i := range cells {
			cells[i] = mdEscape(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	row(heads)
	align := []string{":--", ":--", "--:", "--:", "--:", "--:", "--:", ":--", ":--", ":--"}
	b.WriteString("|" + strings.Join(align, "|") + "|\n")
	lines, _ := c.tableRows()
	for _, l := range lines {
		row(l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps a cell's text literal in Markdown: pipes, and characters that would start
// emphasis, code or links.
func mdEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

package manpage

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// escape makes text safe inside a roff line: a backslash is the escape character, '-' is a
// hyphen to roff (\- is the minus sign options are written with, and what man-db prints as
// ASCII '-'), and anything outside ASCII is named by its code point so that every groff
// device and locale renders it (or its fallback) without a warning.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\t':
			b.WriteByte(' ')
		case r == utf8.RuneError:
			b.WriteString(`?`)
		case r < 0x20 || r == 0x7f:
			// control characters have no place in a page
		case r > 0x7f:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// textLine is one input line of running text: escaped, and guarded when it would otherwise
// start with a control character ('.' or '\”) and be read as a request.
func textLine(s string) string {
	e := escape(strings.TrimRight(s, " \t"))
	if strings.HasPrefix(e, ".") || strings.HasPrefix(e, "'") {
		e = `\&` + e
	}
	return e
}

// quoteArg makes s one argument of a request line (.TH, .SH): quoted, with the quote
// character doubled as groff's man macros read it.
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `""`) + `"`
}

// prose writes text the way a help text is written: lines of running prose (roff fills
// them), blank lines between paragraphs, and indented lines (a command, a table) kept as
// they are.
func prose(b *strings.Builder, text string) {
	literal, gap, started := false, false, false
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			gap = started
			continue
		}
		indented := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
		if literal && !indented {
			b.WriteString(".fi\n.RE\n")
			literal = false
		}
		if gap {
			if literal {
				b.WriteString(".sp\n")
			} else {
				b.WriteString(".PP\n")
			}
		}
		if indented && !literal {
			b.WriteString(".RS 4\n.nf\n")
			literal = true
		}
		if literal {
			l = strings.TrimPrefix(strings.TrimPrefix(l, "\t"), "    ")
		}
		b.WriteString(textLine(l))
		b.WriteString("\n")
		gap, started = false, true
	}
	if literal {
		b.WriteString(".fi\n.RE\n")
	}
}

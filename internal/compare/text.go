package compare

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TextOptions tunes the terminal table.
type TextOptions struct {
	Color bool // ANSI colours (on a terminal)
}

const (
	ansiReset  = "\x1b[0m"
	ansiGreen  = "\x1b[32m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
	ansiBold   = "\x1b[1m"
)

// columns of the table, shared by the text and Markdown writers.
var columns = []string{"quantity", "", "mean ± sd", "min … max", "runs", "change", "95% CI", "ratio", "verdict", "notes"}

// tableRows turns the rows into cells of text, one line per command.
func (c *Comparison) tableRows() (lines [][]string, rowOf []int) {
	for ri, r := range c.Rows {
		for ci, cell := range r.Cells {
			name := ""
			if ci == 0 {
				name = r.Title()
			}
			line := []string{name, c.Commands[ci].Label, cell.MeanText(), cell.RangeText(), strconv.Itoa(cell.Stats.N)}
			if d := cell.Delta; d != nil {
				line = append(line, Pct(d.Pct), CIText(d), r.RatioText(d), Verdict(d))
			} else {
				line = append(line, "", "", "", "")
			}
			line = append(line, strings.Join(cell.Flags(), "; "))
			lines = append(lines, line)
			rowOf = append(rowOf, ri)
		}
	}
	return lines, rowOf
}

// Text writes the comparison as a table for a terminal.
func Text(w io.Writer, c *Comparison, opt TextOptions) error {
	var b strings.Builder
	for _, h := range c.Header() {
		b.WriteString(h + "\n")
	}
	b.WriteString("\n")
	lines, rowOf := c.tableRows()
	heads := append([]string(nil), columns...)
	heads[6] = strconv.FormatFloat(100*c.Confidence, 'g', -1, 64) + "% CI"
	width := make([]int, len(heads))
	for _, l := range append([][]string{heads}, lines...) {
		for i, s := range l {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	write := func(l []string, colour func(col int) string) {
		var parts []string
		for i, s := range l {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if i == 2 || i == 3 || i == 4 || i == 5 { // numbers right-aligned
				s = pad + s
			} else if i < len(l)-1 {
				s += pad
			}
			if col := colour(i); col != "" && strings.TrimSpace(s) != "" {
				s = col + s + ansiReset
			}
			parts = append(parts, s)
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
	}
	none := func(int) string { return "" }
	if opt.Color {
		write(heads, func(int) string { return ansiBold })
	} else {
		write(heads, none)
	}
	for i, l := range lines {
		if i > 0 && rowOf[i] != rowOf[i-1] && !opt.Color {
			// a blank line between quantities keeps plain text readable
			b.WriteString("\n")
		}
		colour := none
		if opt.Color {
			r := c.Rows[rowOf[i]]
			d := r.Cells[indexIn(rowOf, i)].Delta
			colour = func(col int) string {
				switch {
				case col == 0:
					return ansiBold
				case col == 9:
					return ansiYellow
				case d == nil || col < 5 || col > 8:
					return ""
				case !d.Significant:
					return ansiDim
				case r.timeLike() && d.Pct < 0:
					return ansiGreen
				case r.timeLike():
					return ansiRed
				}
				return ansiBold
			}
		}
		write(l, colour)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// indexIn is the position of line i within its row's lines (the command's index).
func indexIn(rowOf []int, i int) int {
	n := 0
	for j := i - 1; j >= 0 && rowOf[j] == rowOf[i]; j-- {
		n++
	}
	return n
}

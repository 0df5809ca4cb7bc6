package profdiff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// WriteText writes perf diff's layout: a header naming the event, the files and how rows
// were matched, then Baseline, one change column per new file, Shared Object (not with
// --sort sym) and Symbol; the children table follows when there is one. Names come from
// files: their control characters are shown escaped (result.Printable).
func (d *Diff) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Event '%s'\n#\n# Data files:\n", result.Printable(d.Event))
	for i, f := range d.Files {
		tag := ""
		if i == 0 {
			tag = " (Baseline)"
		}
		fmt.Fprintf(bw, "#  [%d] %s%s\n", i, result.Printable(f.File), tag)
	}
	fmt.Fprintf(bw, "#\n# %s\n#\n", result.Printable(capitalize(d.Matching)))
	d.table(bw, d.Rows)
	if len(d.Children) > 0 {
		fmt.Fprintf(bw, "\n# Children (inclusive: the function and what it called)\n#\n")
		d.table(bw, d.Children)
	}
	return bw.Flush()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (d *Diff) table(bw *bufio.Writer, rows []Row) {
	head := d.compute.Header()
	if len(d.Files) > 2 {
		head += " [%d]"
	}
	cw := make([]int, len(d.Files))
	heads := make([]string, len(d.Files))
	heads[0], cw[0] = "Baseline", 8
	for i := 1; i < len(d.Files); i++ {
		heads[i] = strings.ReplaceAll(head, "%d", fmt.Sprint(i))
		cw[i] = len(heads[i])
	}
	cells := make([][]string, len(rows))
	for r, row := range rows {
		cells[r] = make([]string, len(d.Files))
		for i, c := range row.Cells {
			cells[r][i] = d.cell(i, c)
			cw[i] = max(cw[i], len(cells[r][i]))
		}
	}
	dsoW := len("Shared Object")
	symW := len("Symbol")
	dsos, syms := make([]string, len(rows)), make([]string, len(rows))
	for r, row := range rows {
		dsos[r], syms[r] = result.Printable(row.DSO), result.Printable(row.Symbol)
		dsoW = max(dsoW, len(dsos[r]))
		symW = max(symW, len(syms[r])+4)
	}
	var h, dots strings.Builder
	h.WriteString("#")
	dots.WriteString("#")
	for i, n := range heads {
		sep := "  "
		if i == 0 {
			sep = " "
		}
		fmt.Fprintf(&h, "%s%*s", sep, cw[i], n)
		fmt.Fprintf(&dots, "%s%s", sep, strings.Repeat(".", cw[i]))
	}
	if d.Match != MatchSym {
		fmt.Fprintf(&h, "  %-*s", dsoW, "Shared Object")
		fmt.Fprintf(&dots, "  %s", strings.Repeat(".", dsoW))
	}
	fmt.Fprintf(&h, "  %s", "Symbol")
	fmt.Fprintf(&dots, "  %s", strings.Repeat(".", symW))
	fmt.Fprintf(bw, "%s\n%s\n#\n", h.String(), dots.String())
	for r, row := range rows {
		var l strings.Builder
		for i := range d.Files {
			fmt.Fprintf(&l, "  %*s", cw[i], cells[r][i])
		}
		if d.Match != MatchSym {
			fmt.Fprintf(&l, "  %-*s", dsoW, dsos[r])
		}
		mark := "[.] "
		if row.Kernel {
			mark = "[k] "
		}
		fmt.Fprintf(&l, "  %s%s", mark, syms[r])
		fmt.Fprintln(bw, strings.TrimRight(l.String(), " "))
	}
}

// cell formats file i's value as perf diff does: the baseline's percentage; the delta with
// a sign (blank below 0.01); the ratio with 6 decimals; the weighted difference (N/A for
// a function without baseline).
func (d *Diff) cell(i int, c *Cell) string {
	if c == nil {
		return ""
	}
	if i == 0 {
		return fmt.Sprintf("%.2f%%", c.Percent)
	}
	switch d.compute.Kind {
	case "ratio":
		if c.Ratio != nil {
			return fmt.Sprintf("%.6f", *c.Ratio)
		}
		return "N/A" // new in this file: no baseline to divide by
	case "wdiff":
		if c.WDiff != nil {
			return fmt.Sprintf("%d", *c.WDiff)
		}
		return "N/A"
	default:
		if c.Delta != nil && math.Abs(*c.Delta) >= 0.01 {
			return fmt.Sprintf("%+.2f%%", *c.Delta)
		}
	}
	return ""
}

// WriteJSON writes the diff as one JSON document (schema pmc.diff/v1).
func (d *Diff) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

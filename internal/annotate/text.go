package annotate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// TextOptions shape the perf-like text.
type TextOptions struct {
	NoSource bool // leave the source lines out even when line information exists
}

// maxTextCol is where the notes column starts at the latest (long instructions push it).
const maxTextCol = 44

// WriteText writes perf annotate --stdio's layout: a header, then "percent : address:
// instruction" per instruction, a source line before the instructions it produced, a ">" in
// the first column of the HotRows hottest instructions, and a skid note after an instruction
// whose samples probably belong to the load or long-latency instruction before it. When line
// information exists, the source lines with the most samples follow. Names and source lines
// come from files: their control characters are shown escaped (result.Printable).
func (r *Result) WriteText(w io.Writer, opt TextOptions) error {
	bw := bufio.NewWriter(w)
	p := result.Printable
	symbol := p(r.Symbol)
	what := p(r.DSO)
	if what == "" {
		what = symbol
	}
	event := p(r.Event)
	if event == "" {
		event = "samples"
	}
	count := fmt.Sprintf("%d samples", r.Samples)
	if r.Samples == 0 {
		count = fmt.Sprintf("period %d", r.TotalPeriod)
	}
	head := fmt.Sprintf(" Percent |\tSource code & Disassembly of %s for %s (%s, percent: local period)", what, event, count)
	fmt.Fprintln(bw, head)
	fmt.Fprintln(bw, strings.Repeat("-", len(head)+8))
	width := 1
	textCol := 0
	texts := make([]string, len(r.Rows)) // the instructions name symbols: escaped too
	for i, row := range r.Rows {
		if n := len(fmt.Sprintf("%x", uint64(row.Addr))); n > width {
			width = n
		}
		texts[i] = p(row.Text)
		if n := len(texts[i]); n > textCol && n <= maxTextCol {
			textCol = n
		}
	}
	fmt.Fprintf(bw, "         :\t%016x <%s>:\n", uint64(r.Start), symbol)
	lastFile, lastLine := "", 0
	for i, row := range r.Rows {
		if !opt.NoSource && row.File != "" && (row.File != lastFile || row.Line != lastLine) {
			if row.File != lastFile {
				fmt.Fprintf(bw, "         :\t%s\n", p(row.File))
			}
			if text, ok := r.sources.line(row.File, row.Line); ok {
				fmt.Fprintf(bw, "         :\t%5d  %s\n", row.Line, p(expandTabs(text)))
			} else {
				fmt.Fprintf(bw, "         :\t%5d  (%s:%d)\n", row.Line, p(path.Base(row.File)), row.Line)
			}
			lastFile, lastLine = row.File, row.Line
		}
		mark := " "
		if row.Hot > 0 {
			mark = ">"
		}
		line := fmt.Sprintf("%s%7.2f :   %*x: %s", mark, row.Percent, width, uint64(row.Addr), texts[i])
		if row.Skid != nil {
			line += strings.Repeat(" ", max(0, textCol-len(texts[i]))) +
				fmt.Sprintf("   <- skid? probably the cost of %s at %x (%s)", row.Skid.Op, uint64(row.Skid.From), row.Skid.Reason)
		}
		fmt.Fprintln(bw, line)
	}
	if len(r.Lines) > 0 && !opt.NoSource {
		fmt.Fprintf(bw, "\n Percent | Source line (hottest first)\n")
		for i, l := range r.Lines {
			if i == 10 {
				break
			}
			fmt.Fprintf(bw, " %7.2f | %s:%d", l.Percent, p(path.Base(l.File)), l.Line)
			if l.Text != "" {
				fmt.Fprintf(bw, "  %s", p(expandTabs(l.Text)))
			}
			fmt.Fprintln(bw)
		}
	}
	if r.Outside > 0 {
		fmt.Fprintf(bw, "\n period %d of the samples fell outside %s's instructions and is not counted above\n", r.Outside, symbol)
	}
	return bw.Flush()
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "        ") }

// WriteJSON writes the result as one JSON document (schema pmc.annotate/v1).
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteAll writes the results in turn: text separated by blank lines, or JSON (one document
// for one result, else a JSON array of them).
func WriteAll(w io.Writer, results []*Result, asJSON bool, opt TextOptions) error {
	if !asJSON {
		for i, r := range results {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := r.WriteText(w, opt); err != nil {
				return err
			}
		}
		return nil
	}
	if len(results) == 1 {
		return results[0].WriteJSON(w)
	}
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i, r := range results {
		if i > 0 {
			io.WriteString(w, ",\n")
		}
		if err := r.WriteJSON(w); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]\n")
	return err
}

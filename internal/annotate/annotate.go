package annotate

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/pmc-tools/pmc/internal/disasm"
)

// Schema is the JSON schema name of a Result.
const Schema = "pmc.annotate/v1"

// HotRows is how many of the hottest instructions are marked.
const HotRows = 5

// LineFunc maps an instruction address to its source position (ok false: unknown).
type LineFunc func(addr uint64) (file string, line int, ok bool)

// Input is everything one annotation needs.
type Input struct {
	Symbol string // function name, e.g. "main"
	Start  uint64 // function start address (for the "<main>:" label)
	DSO    string // the binary's name, e.g. "array2d"
	Event  string // e.g. "cpu-clock"
	Insts  []disasm.Inst
	// Periods is the sample period summed per sampled address. An address inside an
	// instruction counts for that instruction; addresses outside the function are counted in
	// Result.Outside and left out of the percentages.
	Periods map[uint64]uint64
	// Samples is the number of samples in the function (the header's "N samples"); 0 when
	// unknown (the header then gives the total period).
	Samples uint64
	Lines   LineFunc // nil: no source lines
	Sources fs.FS    // where source files are read (a path without its leading "/", then its base name); nil: none
}

// Result is an annotated function, the model both writers read.
type Result struct {
	Schema      string       `json:"schema"`
	Symbol      string       `json:"symbol"`
	DSO         string       `json:"dso,omitempty"`
	Event       string       `json:"event,omitempty"`
	Start       Addr         `json:"start"`
	Samples     uint64       `json:"samples"`
	TotalPeriod uint64       `json:"total_period"`
	Outside     uint64       `json:"outside_period,omitempty"` // period at addresses outside the function
	Rows        []Row        `json:"instructions"`
	Lines       []LineTotal  `json:"source_lines,omitempty"`
	sources     *sourceCache `json:"-"`
}

// Row is one instruction with its share.
type Row struct {
	Addr    Addr     `json:"addr"`
	Len     int      `json:"len"`
	Text    string   `json:"text"`
	Class   []string `json:"class,omitempty"`
	Period  uint64   `json:"period"`
	Percent float64  `json:"percent"`
	File    string   `json:"file,omitempty"`
	Line    int      `json:"line,omitempty"`
	// Hot is the instruction's rank among the HotRows hottest (1 = hottest), 0 otherwise.
	Hot int `json:"hot,omitempty"`
	// Skid is set when the samples here probably belong to the instruction before.
	Skid *Skid `json:"skid,omitempty"`
}

// Addr is a code address, written in JSON as a hex string ("0x4014f0") so 64-bit kernel
// addresses survive JSON readers that hold numbers as doubles.
type Addr uint64

// MarshalJSON writes the address as "0x...".
func (a Addr) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf(`"0x%x"`, uint64(a))), nil }

// Skid names the instruction that probably caused a row's samples.
type Skid struct {
	From   Addr   `json:"from"`   // address of the instruction before
	Reason string `json:"reason"` // "load", "store" or "long-latency"
	Op     string `json:"op"`     // its mnemonic
}

// LineTotal is the period of all instructions of one source line.
type LineTotal struct {
	File    string  `json:"file"`
	Line    int     `json:"line"`
	Period  uint64  `json:"period"`
	Percent float64 `json:"percent"`
	Text    string  `json:"text,omitempty"` // the source line, when the file was found
}

// Build computes the annotation.
func Build(in Input) *Result {
	r := &Result{Schema: Schema, Symbol: in.Symbol, DSO: in.DSO, Event: in.Event, Start: Addr(in.Start),
		Samples: in.Samples, sources: &sourceCache{fsys: in.Sources, files: map[string][]string{}}}
	r.Rows = make([]Row, len(in.Insts))
	for i, ins := range in.Insts {
		r.Rows[i] = Row{Addr: Addr(ins.Addr), Len: ins.Len, Text: ins.Text, Class: ins.Class.Names()}
		if in.Lines != nil {
			if f, l, ok := in.Lines(ins.Addr); ok {
				r.Rows[i].File, r.Rows[i].Line = f, l
			}
		}
	}
	for a, p := range in.Periods {
		i := sort.Search(len(in.Insts), func(i int) bool { return in.Insts[i].Addr > a }) - 1
		if i < 0 || a >= in.Insts[i].Addr+uint64(in.Insts[i].Len) {
			r.Outside += p
			continue
		}
		r.Rows[i].Period += p
		r.TotalPeriod += p
	}
	if r.TotalPeriod > 0 {
		for i := range r.Rows {
			r.Rows[i].Percent = percent(r.Rows[i].Period, r.TotalPeriod)
		}
	}
	r.markHot()
	r.markSkid(in.Insts)
	r.lineTotals()
	return r
}

func percent(p, total uint64) float64 { return 100 * float64(p) / float64(total) }

// markHot ranks the HotRows instructions with the largest periods (ties: lower address first).
func (r *Result) markHot() {
	idx := make([]int, 0, len(r.Rows))
	for i, row := range r.Rows {
		if row.Period > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.Rows[idx[a]].Period > r.Rows[idx[b]].Period })
	for rank, i := range idx {
		if rank == HotRows {
			break
		}
		r.Rows[i].Hot = rank + 1
	}
}

// markSkid flags sampled instructions that directly follow a load or a long-latency
// instruction, and the hottest ones that directly follow a store.
func (r *Result) markSkid(insts []disasm.Inst) {
	for i := 1; i < len(insts); i++ {
		prev := insts[i-1]
		if r.Rows[i].Period == 0 || prev.Addr+uint64(prev.Len) != insts[i].Addr {
			continue
		}
		switch {
		case prev.Class&disasm.LongLatency != 0:
			r.Rows[i].Skid = &Skid{From: Addr(prev.Addr), Reason: "long-latency", Op: prev.Op}
		case prev.Class&disasm.Load != 0 && prev.Class&(disasm.Branch|disasm.Call) == 0:
			r.Rows[i].Skid = &Skid{From: Addr(prev.Addr), Reason: "load", Op: prev.Op}
		case prev.Class&disasm.Store != 0 && prev.Class&(disasm.Branch|disasm.Call) == 0 && r.Rows[i].Hot > 0:
			// Stores retire into the write buffer and rarely cost anything; stores that miss
			// over and over (the seed's column walk of a 2D array) stall the core once the
			// buffer is full, and their cost lands on the next instruction: said where that
			// one is among the hottest, not after every store.
			r.Rows[i].Skid = &Skid{From: Addr(prev.Addr), Reason: "store", Op: prev.Op}
		}
	}
}

// lineTotals sums the periods per source line, hottest first.
func (r *Result) lineTotals() {
	type key struct {
		file string
		line int
	}
	sum := map[key]uint64{}
	for _, row := range r.Rows {
		if row.File != "" && row.Period > 0 {
			sum[key{row.File, row.Line}] += row.Period
		}
	}
	for k, p := range sum {
		text, _ := r.sources.line(k.file, k.line)
		r.Lines = append(r.Lines, LineTotal{File: k.file, Line: k.line, Period: p,
			Percent: percent(p, r.TotalPeriod), Text: strings.TrimSpace(text)})
	}
	sort.Slice(r.Lines, func(i, j int) bool {
		a, b := r.Lines[i], r.Lines[j]
		if a.Period != b.Period {
			return a.Period > b.Period
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}

// sourceCache reads each source file once.
type sourceCache struct {
	fsys  fs.FS
	files map[string][]string
}

// line is the text of line n of file (1-based); ok is false when the file or line is missing.
func (c *sourceCache) line(file string, n int) (string, bool) {
	if c == nil || c.fsys == nil {
		return "", false
	}
	lines, seen := c.files[file]
	if !seen {
		for _, p := range []string{path.Clean(strings.TrimPrefix(file, "/")), path.Base(file)} {
			if !fs.ValidPath(p) {
				continue
			}
			if b, err := fs.ReadFile(c.fsys, p); err == nil {
				lines = splitLines(b)
				break
			}
		}
		c.files[file] = lines
	}
	if n < 1 || n > len(lines) {
		return "", false
	}
	return lines[n-1], true
}

func splitLines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		out = append(out, strings.TrimRight(sc.Text(), "\r"))
	}
	return out
}

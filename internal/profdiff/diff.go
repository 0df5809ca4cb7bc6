package profdiff

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/pmc-tools/pmc/internal/profile"
)

// Schema is the JSON schema name of a Diff.
const Schema = "pmc.diff/v1"

// Match says how rows of different profiles are taken to be the same function.
type Match string

// The matchings.
const (
	MatchMain   Match = "main"    // main programs' symbols by name; libraries and kernel by DSO and name
	MatchSym    Match = "sym"     // symbol name only (perf diff --sort symbol)
	MatchDSOSym Match = "dso,sym" // shared object and symbol (perf diff's default)
)

// ParseMatch reads --sort's value ("" is the default, MatchMain).
func ParseMatch(s string) (Match, error) {
	switch strings.ReplaceAll(s, "symbol", "sym") {
	case "":
		return MatchMain, nil
	case "sym":
		return MatchSym, nil
	case "dso,sym":
		return MatchDSOSym, nil
	}
	return "", fmt.Errorf("--sort %q: use sym or dso,sym (default: main programs by symbol, the rest by dso,sym)", s)
}

// Compute is what the change column shows.
type Compute struct {
	Kind   string // "delta-abs" (perf's default), "delta", "ratio", "wdiff"
	W1, W2 int64  // wdiff's weights: new*W2 - baseline*W1
}

// ParseCompute reads --compute's value: delta-abs, delta, ratio or wdiff:W1,W2.
func ParseCompute(s string) (Compute, error) {
	kind, arg, hasArg := strings.Cut(s, ":")
	switch kind {
	case "delta-abs", "delta", "ratio":
		if hasArg {
			return Compute{}, fmt.Errorf("--compute %s takes no argument", kind)
		}
		return Compute{Kind: kind}, nil
	case "wdiff":
		a, b, ok := strings.Cut(arg, ",")
		w1, err1 := strconv.ParseInt(a, 10, 64)
		w2, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || w1 == 0 || w2 == 0 {
			return Compute{}, fmt.Errorf("--compute %q: give the weights as wdiff:W1,W2 (non-zero integers)", s)
		}
		return Compute{Kind: kind, W1: w1, W2: w2}, nil
	}
	return Compute{}, fmt.Errorf("--compute %q: use delta-abs, delta, ratio or wdiff:W1,W2", s)
}

// Header is the column title of the change.
func (c Compute) Header() string {
	switch c.Kind {
	case "delta":
		return "Delta"
	case "ratio":
		return "Ratio"
	case "wdiff":
		return "Weighted diff"
	}
	return "Delta Abs"
}

// File is one profile's side of the diff: its report for the event (self periods, sorted
// by dso,sym) and, for the children table, the report with Children set (nil: none).
type File struct {
	Name     string
	Self     *profile.Report
	Children *profile.Report
}

// Diff is the whole comparison, the model both writers read.
type Diff struct {
	Schema   string  `json:"schema"`
	Event    string  `json:"event"`
	Match    Match   `json:"match"`
	Matching string  `json:"matching"` // how rows were matched, in words
	Compute  string  `json:"compute"`
	Files    []Side  `json:"files"` // [0] is the baseline
	Rows     []Row   `json:"rows"`
	Children []Row   `json:"children_rows,omitempty"`
	compute  Compute `json:"-"`
}

// Side describes one input file.
type Side struct {
	File        string   `json:"file"`
	Samples     uint64   `json:"samples"`
	TotalPeriod uint64   `json:"total_period"`
	Main        []string `json:"main_programs,omitempty"`
}

// Row is one function across the files.
type Row struct {
	DSO    string  `json:"dso,omitempty"` // "" with MatchSym
	Symbol string  `json:"symbol"`
	Kernel bool    `json:"kernel,omitempty"`
	Cells  []*Cell `json:"cells"` // per file, [0] the baseline; null where the function has no samples
	key    string
}

// Cell is one function in one file. The change fields compare it with the baseline's cell
// and are absent on the baseline and where either side has no samples (but Delta, which a
// function new in this file gets as its whole percentage, as perf diff shows it).
type Cell struct {
	DSO     string   `json:"dso,omitempty"`
	Period  uint64   `json:"period"`
	Percent float64  `json:"percent"`
	Delta   *float64 `json:"delta,omitempty"`
	Ratio   *float64 `json:"ratio,omitempty"`
	WDiff   *int64   `json:"wdiff,omitempty"`
}

// IsMain reports whether d is a main program: a file that is not a shared library
// (no ".so" in its name) and not the kernel.
func IsMain(d *profile.DSO) bool {
	base := path.Base(d.Name)
	so := strings.HasSuffix(base, ".so") || strings.Contains(base, ".so.")
	return !d.Kernel && !strings.HasPrefix(d.Name, "[") && !so
}

// Build lines the files up; files[0] is the baseline.
func Build(files []File, m Match, c Compute) *Diff {
	d := &Diff{Schema: Schema, Match: m, Compute: c.Kind, compute: c}
	if len(files) > 0 && files[0].Self != nil {
		d.Event = files[0].Self.Event.Name
	}
	for _, f := range files {
		s := Side{File: f.Name, Samples: f.Self.Event.Samples, TotalPeriod: f.Self.Total}
		seen := map[string]bool{}
		for _, e := range f.Self.Entries {
			if n := profile.DSOName(e.DSO); IsMain(e.DSO) && !seen[n] {
				seen[n] = true
				s.Main = append(s.Main, n)
			}
		}
		sort.Strings(s.Main)
		d.Files = append(d.Files, s)
	}
	d.Matching = d.matching()
	d.Rows = d.rows(files, func(f File) *profile.Report { return f.Self }, false)
	if len(files) > 0 && files[0].Children != nil {
		d.Children = d.rows(files, func(f File) *profile.Report { return f.Children }, true)
	}
	return d
}

func (d *Diff) matching() string {
	switch d.Match {
	case MatchSym:
		return "rows matched by symbol name alone (--sort sym)"
	case MatchDSOSym:
		return "rows matched by shared object and symbol (--sort dso,sym, perf diff's default)"
	}
	var mains []string
	for _, s := range d.Files {
		mains = append(mains, s.Main...)
	}
	mains = uniq(mains)
	if len(mains) == 0 {
		return "rows matched by shared object and symbol (no main program sampled)"
	}
	return fmt.Sprintf("main programs (%s) matched by symbol name; shared libraries and the kernel by shared object and symbol", strings.Join(mains, ", "))
}

func uniq(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// key is the matching key of an entry.
func (d *Diff) key(e *profile.Entry) (key, dso string) {
	sym := e.Sym.Name
	if e.Kernel {
		sym = "[k] " + sym
	} else {
		sym = "[.] " + sym
	}
	dso = profile.DSOName(e.DSO)
	if e.Kernel && e.Sym.Unknown && e.DSO.BuildID != "" {
		// An address names a function of one kernel build only: two recordings of
		// different kernels share no unresolved kernel row.
		sym += "\x00" + e.DSO.BuildID
	}
	switch {
	case d.Match == MatchSym:
		return sym, ""
	case d.Match == MatchMain && IsMain(e.DSO):
		return "\x00main\x00" + sym, dso
	}
	return dso + "\x00" + sym, dso
}

func (d *Diff) rows(files []File, rep func(File) *profile.Report, children bool) []Row {
	byKey := map[string]*Row{}
	var rows []*Row
	for fi, f := range files {
		r := rep(f)
		for _, e := range r.Entries {
			k, dso := d.key(e)
			row := byKey[k]
			if row == nil {
				row = &Row{key: k, Symbol: e.Sym.Name, Kernel: e.Kernel, Cells: make([]*Cell, len(files))}
				byKey[k] = row
				rows = append(rows, row)
			}
			c := row.Cells[fi]
			if c == nil {
				c = &Cell{DSO: dso}
				row.Cells[fi] = c
			}
			if children {
				c.Period += e.Children
			} else {
				c.Period += e.Self
			}
		}
		for _, row := range rows {
			if c := row.Cells[fi]; c != nil && r.Total > 0 {
				c.Percent = float64(c.Period) * 100.0 / float64(r.Total)
			}
		}
	}
	for _, row := range rows {
		d.compare(row)
	}
	d.sort(rows)
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = *r
	}
	return out
}

// compare fills the change fields of row's cells against the baseline, as perf diff's
// compute_delta, compute_ratio and compute_wdiff do.
func (d *Diff) compare(row *Row) {
	base := row.Cells[0]
	// The Shared Object shown is the newest file's name for the function.
	for i := len(row.Cells) - 1; i >= 0 && d.Match != MatchSym; i-- {
		if c := row.Cells[i]; c != nil {
			row.DSO = c.DSO
			break
		}
	}
	for _, c := range row.Cells[1:] {
		if c == nil {
			continue
		}
		var basePct float64
		if base != nil {
			basePct = base.Percent
		}
		delta := c.Percent - basePct
		c.Delta = &delta
		if base == nil {
			continue
		}
		old := base.Period
		if old == 0 {
			old = 1
		}
		ratio := float64(c.Period) / float64(old)
		c.Ratio = &ratio
		w := int64(c.Period)*d.compute.W2 - int64(base.Period)*d.compute.W1
		if d.compute.Kind == "wdiff" {
			c.WDiff = &w
		}
	}
}

// value is the sort value of a row: the chosen compute of the first new file; ok false
// when the row has no such value (only in the baseline).
func (d *Diff) value(row *Row) (float64, bool) {
	if len(row.Cells) < 2 || row.Cells[1] == nil {
		return 0, false
	}
	c := row.Cells[1]
	switch d.compute.Kind {
	case "delta":
		return *c.Delta, true
	case "ratio":
		if c.Ratio == nil {
			return 0, false
		}
		return *c.Ratio, true
	case "wdiff":
		if c.WDiff == nil {
			return 0, false
		}
		return float64(*c.WDiff), true
	}
	return math.Abs(*c.Delta), true
}

// class groups rows as perf diff orders them: 0 with a value to sort by, 1 new in the first
// new file without one (ratio, wdiff: "N/A"), 2 in the baseline only (or absent from it).
func (d *Diff) class(row *Row) int {
	if _, ok := d.value(row); ok {
		return 0
	}
	if len(row.Cells) > 1 && row.Cells[1] != nil {
		return 1
	}
	return 2
}

// sort orders rows as perf diff does: the rows with a value by it, largest first (ties of
// a ratio or weighted diff by the baseline period); then, for ratio and wdiff, the new
// functions by their new period; then the baseline's other rows by their baseline period;
// remaining ties by name (shared object, then symbol).
func (d *Diff) sort(rows []*Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		ca, cb := d.class(a), d.class(b)
		if ca != cb {
			return ca < cb
		}
		va, _ := d.value(a)
		vb, _ := d.value(b)
		if ca == 0 && va != vb {
			return va > vb
		}
		if ca == 1 {
			if pa, pb := period(a.Cells[1]), period(b.Cells[1]); pa != pb {
				return pa > pb
			}
		}
		if ca == 2 || d.compute.Kind == "ratio" || d.compute.Kind == "wdiff" {
			if pa, pb := period(a.Cells[0]), period(b.Cells[0]); pa != pb {
				return pa > pb
			}
		}
		if a.DSO != b.DSO && d.Match != MatchSym {
			return a.DSO < b.DSO
		}
		return a.Symbol < b.Symbol
	})
}

func period(c *Cell) uint64 {
	if c == nil {
		return 0
	}
	return c.Period
}

package driver

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/pmc-tools/pmc/internal/annotate"
	"github.com/pmc-tools/pmc/internal/disasm"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// AnnotateOptions choose the functions pmc annotate shows and what it reads for them.
type AnnotateOptions struct {
	Symbol     string  // the function (its name or raw name); "" the hottest, in turn
	Event      string  // the event whose samples count; "" the first with samples
	MinPercent float64 // without Symbol: the functions holding at least this share
	// Source reads the functions' line tables and SourceDir's source files ("" none).
	Source    bool
	SourceDir string
}

// Annotation is the functions laid out, hottest first, and what the user is told beside
// them (code taken from the archive, functions that could not be annotated and why).
type Annotation struct {
	Results []*annotate.Result
	Notes   []string
}

// AnnotateReport is pmc annotate: which recording, which functions, which output.
type AnnotateReport struct {
	Load Options // the recording and its symbols (only sampled addresses are resolved)
	AnnotateOptions
	// Stdio and JSON choose text (the default) or JSON (pmc.annotate/v1); SourceGiven and
	// NoSource are --source and --no-source (Source is set from them).
	Stdio, JSON           bool
	SourceGiven, NoSource bool
	Output                string // the file to write ("": Stdout)
	Stdout                io.Writer
	Warn                  func(warnings []string) // told about symbols and functions left out
}

// WriteAnnotate loads the recording and writes its chosen functions annotated. The output
// file is opened before the recording is read.
func WriteAnnotate(o AnnotateReport) error {
	switch {
	case o.SourceGiven && o.NoSource:
		return errors.New("--source and --no-source: choose one")
	case o.JSON && o.Stdio:
		return errors.New("--json and --stdio: choose one")
	}
	if err := CheckPercentLimit(o.MinPercent); err != nil {
		return err
	}
	return writeTo(o.Output, o.Stdout, func(out io.Writer) error {
		// Annotate counts each sample where it hit: call chains are not resolved.
		lo := o.Load
		lo.IPOnly = true
		r, err := Load(lo)
		if err != nil {
			return err
		}
		o.Warn(r.Warnings)
		o.Source = !o.NoSource
		a, err := r.Annotate(o.AnnotateOptions)
		if a != nil {
			o.Warn(a.Notes)
		}
		if err != nil {
			return err
		}
		return annotate.WriteAll(out, a.Results, o.JSON, annotate.TextOptions{NoSource: o.NoSource})
	})
}

// hotSymbol is one function's samples in the chosen event.
type hotSymbol struct {
	sym     *profile.Symbol
	period  uint64
	samples uint64
	periods map[uint64]uint64 // by address in the DSO's space
}

// Annotate disassembles the chosen functions of r's profile and lays their samples out.
// Machine code and line tables are read for those functions only.
func (r *Result) Annotate(o AnnotateOptions) (*Annotation, error) {
	p := r.Profile
	ev, err := PickEvent(p, o.Event)
	if err != nil {
		return nil, err
	}
	hot := hotSymbols(p, ev)
	var chosen []*hotSymbol
	if o.Symbol != "" {
		for _, h := range hot {
			if h.sym.Name == o.Symbol || h.sym.Raw == o.Symbol {
				chosen = append(chosen, h)
			}
		}
		if len(chosen) == 0 {
			return nil, symbolNotFound(o.Symbol, hot)
		}
	} else {
		total := p.Events[ev].Period
		for _, h := range hot {
			if total > 0 && 100*float64(h.period)/float64(total) >= o.MinPercent {
				chosen = append(chosen, h)
			}
		}
	}
	code := r.Code()
	defer code.Close()
	a := &Annotation{}
	archived := map[*profile.DSO]bool{}
	skipped := map[string]int{} // reason -> functions
	for _, h := range chosen {
		res, fromArchive, err := annotateOne(code, h, p.Events[ev].Name, o)
		if err != nil {
			if o.Symbol != "" {
				return nil, err
			}
			skipped[err.Error()]++
			continue
		}
		if fromArchive != nil && !archived[h.sym.DSO] {
			archived[h.sym.DSO] = true
			a.Notes = append(a.Notes, fmt.Sprintf("%v: its code comes from the symbol archive", fromArchive))
		}
		a.Results = append(a.Results, res)
	}
	reasons := make([]string, 0, len(skipped))
	for r := range skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		a.Notes = append(a.Notes, fmt.Sprintf("%d sampled function(s) not annotated: %s", skipped[r], r))
	}
	if len(a.Results) == 0 {
		return a, errors.New("no function could be annotated (see above); name one with pmc annotate SYMBOL")
	}
	return a, nil
}

// PickEvent is the index of the event named (or of the first with samples).
func PickEvent(p *profile.Profile, name string) (int, error) {
	var names []string
	for _, ev := range p.Events {
		if name == "" && ev.Samples > 0 || name != "" && ev.Name == name {
			return ev.Index, nil
		}
		names = append(names, ev.Name)
	}
	if name == "" {
		return 0, errors.New("the file has no samples: record again with a longer workload")
	}
	return 0, fmt.Errorf("no event %q in the file: use one of %s", name, strings.Join(names, ", "))
}

// hotSymbols gathers the samples of event ev per function (the sampled address, Stack[0]),
// hottest first; unresolved addresses are left out.
func hotSymbols(p *profile.Profile, ev int) []*hotSymbol {
	by := map[*profile.Symbol]*hotSymbol{}
	var out []*hotSymbol
	for i := range p.Samples {
		s := &p.Samples[i]
		if s.Event != ev || len(s.Stack) == 0 {
			continue
		}
		l := s.Stack[0]
		if l.Sym == nil || l.Sym.Unknown {
			continue
		}
		h := by[l.Sym]
		if h == nil {
			h = &hotSymbol{sym: l.Sym, periods: map[uint64]uint64{}}
			by[l.Sym] = h
			out = append(out, h)
		}
		h.period += s.Period
		h.samples++
		h.periods[l.Rel] += s.Period
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].period != out[j].period {
			return out[i].period > out[j].period
		}
		return out[i].sym.Name < out[j].sym.Name
	})
	return out
}

// symbolNotFound names the sampled functions closest to want (pmc stat's suggestions for
// event names), or the hottest when none is close.
func symbolNotFound(want string, hot []*hotSymbol) error {
	var names []string
	for _, h := range hot {
		names = append(names, h.sym.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("no sampled function %q: the file has no resolved samples", want)
	}
	if s := events.DidYouMean(want, names); s != "" {
		return fmt.Errorf("no sampled function %q%s", want, s)
	}
	return fmt.Errorf("no sampled function %q: the hottest are %s", want, strings.Join(names[:min(5, len(names))], ", "))
}

// object is the code reader's view of a DSO.
func object(d *profile.DSO) symbol.Object {
	return symbol.Object{Path: d.Name, BuildID: d.BuildID, Kernel: d.Kernel, Table: d.Table}
}

// annotateOne disassembles h's function and lays its samples out; archived, when the code
// came from the symbol archive, says why the binary could not be used.
func annotateOne(code *Code, h *hotSymbol, event string, o AnnotateOptions) (res *annotate.Result, archived, err error) {
	sym := h.sym
	insts, fc, err := code.Disassemble(sym)
	if err != nil {
		return nil, nil, err
	}
	in := annotate.Input{Symbol: sym.Name, Start: sym.Start, DSO: profile.DSOName(sym.DSO), Event: event,
		Insts: insts, Periods: h.periods, Samples: h.samples}
	if o.Source {
		if lines := code.Reader.Lines(object(sym.DSO), sym.Start); lines != nil {
			in.Lines = func(a uint64) (string, int, bool) {
				f, l := lines.Lookup(a)
				return f, l, f != ""
			}
			if o.SourceDir != "" {
				in.Sources = os.DirFS(o.SourceDir)
			}
		}
	}
	return annotate.Build(in), fc.Archived, nil
}

// Code reads and decodes the functions of a loaded recording's binaries, as pmc annotate
// shows them; Close releases the binaries.
type Code struct {
	// Reader reads the code and line tables from the binaries the recording's symbols came
	// from (the same files, debug files and archive).
	Reader *symbol.CodeReader
	names  map[*elf.File]disasm.Symbolizer // each binary's names for branch targets, made once
}

// Code returns a Code for r's binaries.
func (r *Result) Code() *Code { return &Code{Reader: symbol.NewCodeReader(r.res)} }

// Close releases the binaries opened.
func (c *Code) Close() { c.Reader.Close() }

// Disassemble reads the machine code of sym (a function of a profile's DSO) and decodes it,
// branch targets named as objdump names them (from the binary, else from the DSO's symbol
// table); fc says where the code came from (FuncCode.Archived: the symbol archive, and why
// the binary could not be used).
func (c *Code) Disassemble(sym *profile.Symbol) (insts []disasm.Inst, fc *symbol.FuncCode, err error) {
	fc, err = c.Reader.Function(object(sym.DSO), sym.Start, sym.Size, sym.Name)
	if err != nil {
		return nil, nil, err
	}
	arch, ok := disasm.ArchOf(fc.Machine, fc.Value)
	if !ok {
		return nil, nil, fmt.Errorf("%s: machine %v: pmc decodes x86-64, arm64, ARM and Thumb-2 only", sym.DSO.Name, fc.Machine)
	}
	opt := &disasm.Options{Mapping: mapping(fc)}
	if fc.ELF != nil {
		// The binary's own names, as objdump (and so perf annotate) gives them.
		if c.names == nil {
			c.names = map[*elf.File]disasm.Symbolizer{}
		}
		if c.names[fc.ELF] == nil {
			c.names[fc.ELF] = disasm.ELFSymbols(fc.ELF)
		}
		opt.Symbols = c.names[fc.ELF]
	} else if t := sym.DSO.Table; t != nil {
		opt.Symbols = func(a uint64) (string, uint64, bool) {
			s := t.Lookup(a)
			if s == nil {
				return "", 0, false
			}
			return s.Name, s.Addr, true
		}
	}
	return disasm.Decode(arch, sym.Start, fc.Bytes, opt), fc, nil
}

// mapping is the ARM mapping symbols of a function's file (disasm tells ARM from Thumb
// code and data by them).
func mapping(fc *symbol.FuncCode) []disasm.MapSym {
	if fc.Machine != elf.EM_ARM {
		return nil
	}
	if fc.ELFSymbols != nil {
		return disasm.Mapping(fc.ELFSymbols)
	}
	var out []disasm.MapSym
	for _, m := range fc.Maps {
		out = append(out, disasm.MapSym{Addr: m.Addr, Kind: m.Kind})
	}
	return out
}

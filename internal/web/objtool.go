package web

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/google/pprof/driver"

	pmcdriver "github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// objTool is pprof's view of the binaries: the DSOs of the served profiles, their symbol
// and line tables, their code decoded by internal/disasm. Addresses are the DSOs' own (the
// profile's locations are converted with proffmt's DSOAddresses), so ObjAddr is the
// identity. pprof calls it from concurrent HTTP handlers: one lock guards it all.
type objTool struct {
	mu   sync.Mutex
	objs []*object
}

// object is one DSO of a served profile, named as its pprof Mapping is.
type object struct {
	dso          *profile.DSO
	code         *pmcdriver.Code
	file         string
	start, limit uint64
	syms         map[uint64]*profile.Symbol // the DSO's functions as Disassemble takes them
}

func (t *objTool) add(d *profile.DSO, code *pmcdriver.Code, start, limit uint64) {
	t.objs = append(t.objs, &object{dso: d, code: code, file: d.Name, start: start, limit: limit,
		syms: map[uint64]*profile.Symbol{}})
}

// find is the object pprof means by a mapping's file and range: when several DSOs share a
// name (two builds of one path), the one with that range, else the one holding start, else
// the first of that name.
func (t *objTool) find(file string, start, limit uint64) *object {
	var first, holds *object
	for _, o := range t.objs {
		if o.file != file {
			continue
		}
		switch {
		case o.start == start && o.limit == limit:
			return o
		case holds == nil && start >= o.start && start < o.limit:
			holds = o
		case first == nil:
			first = o
		}
	}
	if holds != nil {
		return holds
	}
	return first
}

// Open returns the DSO the profile names file; pprof's own guesses at other paths (its
// binary search path) name nothing pmc read and fail.
func (t *objTool) Open(file string, start, limit, _ uint64, _ string) (driver.ObjFile, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.find(file, start, limit)
	switch {
	case o == nil:
		return nil, fmt.Errorf("%s: not a binary of this recording", file)
	case o.dso.Kernel:
		return nil, fmt.Errorf("%s: no code for kernel functions (pmc reads neither vmlinux nor /proc/kcore)", file)
	case o.dso.Table == nil:
		why := "no symbols"
		if o.dso.Err != nil {
			why = o.dso.Err.Error()
		}
		return nil, fmt.Errorf("%s: %s", file, why)
	}
	return &objFile{t: t, o: o}, nil
}

// Disasm decodes the functions of file that overlap [start, end); functions whose code
// cannot be read (a binary gone and not kept in the archive) are left out, and the error is
// returned only when none could be. pmc writes AT&T syntax only.
func (t *objTool) Disasm(file string, start, end uint64, _ bool) ([]driver.Inst, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.find(file, start, start+1)
	if o == nil || o.dso.Table == nil {
		return nil, fmt.Errorf("%s: not a binary of this recording", file)
	}
	var out []driver.Inst
	var first error
	tab := o.dso.Table
	for _, s := range overlapping(tab, start, end) {
		sym := o.symbol(s)
		insts, _, err := o.code.Disassemble(sym)
		if err != nil {
			first = cmpErr(first, err)
			continue
		}
		var lines *symbol.Lines
		if tab.Lines == nil {
			lines = o.code.Reader.Lines(codeObject(o.dso), sym.Start)
		}
		for _, in := range insts {
			if in.Addr < start || in.Addr >= end {
				continue
			}
			file, line := tab.Lines.Lookup(in.Addr)
			if tab.Lines == nil {
				file, line = lines.Lookup(in.Addr)
			}
			out = append(out, driver.Inst{Addr: in.Addr, Text: strings.TrimSpace(in.Text), Function: sym.Name, File: file, Line: line})
		}
	}
	if len(out) == 0 {
		if first == nil {
			first = fmt.Errorf("%s: no function at %#x-%#x", file, start, end)
		}
		return nil, first
	}
	return out, nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// overlapping are the symbols of t that overlap [start, end), in address order.
func overlapping(t *symbol.Table, start, end uint64) []symbol.Sym {
	var out []symbol.Sym
	for _, s := range t.Syms {
		if s.Addr >= end {
			break
		}
		if s.End() > start && s.Size > 0 {
			out = append(out, s)
		}
	}
	return out
}

// symbol is s as a profile Symbol of o's DSO (what pmc's disassembly takes), made once.
func (o *object) symbol(s symbol.Sym) *profile.Symbol {
	if y, ok := o.syms[s.Addr]; ok {
		return y
	}
	y := &profile.Symbol{Name: symbol.DemangleShort(s.Name), Raw: s.Name, DSO: o.dso, Start: s.Addr, Size: s.Size}
	o.syms[s.Addr] = y
	return y
}

// codeObject is d as symbol's code reader names it.
func codeObject(d *profile.DSO) symbol.Object {
	return symbol.Object{Path: d.Name, BuildID: d.BuildID, Kernel: d.Kernel, Table: d.Table}
}

// objFile is one opened DSO.
type objFile struct {
	t *objTool
	o *object
}

func (f *objFile) Name() string    { return f.o.file }
func (f *objFile) BuildID() string { return f.o.dso.BuildID }
func (f *objFile) Close() error    { return nil }

// ObjAddr is the identity: the profile's addresses are the DSO's own.
func (f *objFile) ObjAddr(addr uint64) (uint64, error) { return addr, nil }

// SourceLine is the function and source line of addr (pmc reads no inlining: one frame).
func (f *objFile) SourceLine(addr uint64) ([]driver.Frame, error) {
	f.t.mu.Lock()
	defer f.t.mu.Unlock()
	tab := f.o.dso.Table
	s := tab.Lookup(addr)
	if s == nil {
		return nil, fmt.Errorf("%s: no function at %#x", f.o.file, addr)
	}
	lines := tab.Lines
	if lines == nil {
		lines = f.o.code.Reader.Lines(codeObject(f.o.dso), s.Addr)
	}
	file, line := lines.Lookup(addr)
	if file == "" {
		return nil, errors.New("no line information")
	}
	return []driver.Frame{{Func: symbol.DemangleShort(s.Name), File: file, Line: line}}, nil
}

// Symbols are the functions whose name (demangled or as stored) matches r and, when addr is
// not 0, that hold addr.
func (f *objFile) Symbols(r *regexp.Regexp, addr uint64) ([]*driver.Sym, error) {
	var out []*driver.Sym
	for _, s := range f.o.dso.Table.Syms {
		if addr != 0 && (addr < s.Addr || addr >= s.End()) {
			continue
		}
		name := symbol.DemangleShort(s.Name)
		if r != nil && !r.MatchString(name) && !r.MatchString(s.Name) {
			continue
		}
		names := []string{name}
		if s.Name != name {
			names = append(names, s.Name)
		}
		end := s.Addr
		if s.Size > 0 {
			end = s.End() - 1
		}
		out = append(out, &driver.Sym{Name: names, File: f.o.file, Start: s.Addr, End: end})
	}
	return out, nil
}

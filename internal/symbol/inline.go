package symbol

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"io"
	"slices"
)

// Scope is a function's address range in the DWARF: a subprogram (Depth 0) or a subroutine
// inlined into the scope of Depth-1 before it. A scope with several ranges is written as
// several Scopes, the later ones with More set. Name is the one addr2line gives: the
// linkage name when there is one (through DW_AT_abstract_origin and DW_AT_specification),
// else DW_AT_name, as stored (mangled).
type Scope struct {
	Lo, Hi uint64
	Depth  int
	More   bool // another range of the scope before it
	Name   string
}

// Inlines answers which functions, inlined one into the other, an address is in: what
// addr2line -i prints and perf's call chains show as "(inlined)" frames. Built from the
// DWARF of an object (lazily, one compilation unit at a time) or from the scopes an
// archive kept. Safe for one goroutine at a time.
type Inlines struct {
	d      *dwarf.Data
	units  []unitRange // the compilation units by address, when d is set
	done   map[dwarf.Offset]bool
	names  map[dwarf.Offset]string
	tops   []scopeTop // subprograms' ranges, sorted by Lo once sorted is set
	sorted bool
	scopes []Scope
}

type unitRange struct {
	lo, hi uint64
	off    dwarf.Offset
}

// scopeTop is one range of a subprogram: scopes[from:to] are the subprogram (its ranges)
// and its inlined subroutines, in the DWARF's order.
type scopeTop struct {
	lo, hi   uint64
	from, to int
}

// maxScopes bounds the scopes kept for one object.
const maxScopes = 1 << 22

// At returns the names of the functions addr is in, the innermost first, the subprogram
// last (nil when no scope covers it).
func (in *Inlines) At(addr uint64) []string {
	if in == nil {
		return nil
	}
	if in.d != nil {
		in.loadUnit(addr)
	}
	if !in.sorted {
		slices.SortStableFunc(in.tops, func(a, b scopeTop) int { return cmp.Compare(a.lo, b.lo) })
		in.sorted = true
	}
	i, _ := slices.BinarySearchFunc(in.tops, addr, func(t scopeTop, a uint64) int {
		if t.lo > a {
			return 1
		}
		return -1
	})
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		t := in.tops[j]
		if addr >= t.hi {
			continue
		}
		return in.chain(t, addr)
	}
	return nil
}

// chain walks a subprogram's scopes for those containing addr.
func (in *Inlines) chain(t scopeTop, addr uint64) []string {
	block := in.scopes[t.from:t.to]
	names := []string{block[0].Name}
	depth := 0   // the depth of the innermost scope found so far
	inside := -1 // the index of the scope that contains addr at depth+1 (all its ranges)
	for k := 1; k < len(block); k++ {
		s := block[k]
		if s.Depth <= depth {
			if s.Depth < depth || !s.More {
				break // past the innermost scope's children
			}
			continue
		}
		if s.Depth != depth+1 {
			continue
		}
		if !s.More {
			inside = -1
		}
		if inside < 0 && addr >= s.Lo && addr < s.Hi {
			inside = k
			names = append(names, s.Name)
			depth++
		}
	}
	slices.Reverse(names)
	return names
}

// inlinesOf reads the DWARF of an ELF file for Inlines (nil when it has none).
func inlinesOf(ra io.ReaderAt) *Inlines {
	f, err := elf.NewFile(ra)
	if err != nil {
		return nil
	}
	d := scopesDWARF(f)
	if d == nil {
		return nil
	}
	in := &Inlines{d: d, done: map[dwarf.Offset]bool{}, names: map[dwarf.Offset]string{}}
	rd := d.Reader()
	for {
		e, err := rd.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			if rs, err := d.Ranges(e); err == nil {
				for _, r := range rs {
					if r[1] > r[0] {
						in.units = append(in.units, unitRange{r[0], r[1], e.Offset})
					}
				}
			}
		}
		rd.SkipChildren()
	}
	slices.SortFunc(in.units, func(a, b unitRange) int { return cmp.Compare(a.lo, b.lo) })
	return in
}

// loadUnit reads the scopes of the compilation unit holding addr, once.
func (in *Inlines) loadUnit(addr uint64) {
	for _, u := range in.units {
		if addr < u.lo || addr >= u.hi || in.done[u.off] {
			continue
		}
		in.done[u.off] = true
		in.readUnit(u.off)
		in.sorted = false
	}
}

// readUnit adds the scopes of the unit at off.
func (in *Inlines) readUnit(off dwarf.Offset) {
	rd := in.d.Reader()
	rd.Seek(off)
	cu, err := rd.Next()
	if err != nil || cu == nil || !cu.Children {
		return
	}
	// levels[i] is the scope depth inside the i-th open DIE with children (-1: outside any
	// subprogram), for the null entries that close them.
	levels := []int{-1}
	block := -1 // the current subprogram's first scope
	for len(levels) > 0 && len(in.scopes) < maxScopes {
		e, err := rd.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == 0 {
			levels = levels[:len(levels)-1]
			continue
		}
		cur := levels[len(levels)-1]
		inner := cur
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			depth := cur + 1
			if e.Tag == dwarf.TagSubprogram {
				depth = 0 // a nested function is a function of its own
			}
			if e.Tag == dwarf.TagInlinedSubroutine && cur < 0 {
				break // an inlined call outside any function
			}
			rs, err := in.d.Ranges(e)
			if err != nil || len(rs) == 0 {
				if e.Tag == dwarf.TagSubprogram {
					inner = -1 // a declaration: nothing inside is code
				}
				break
			}
			if depth == 0 {
				in.closeBlock(block, len(in.scopes))
				block = len(in.scopes)
			}
			name := in.name(e, 0)
			for i, r := range rs {
				in.scopes = append(in.scopes, Scope{Lo: r[0], Hi: r[1], Depth: depth, More: i > 0, Name: name})
			}
			inner = depth
		}
		if e.Children {
			levels = append(levels, inner)
		}
	}
	in.closeBlock(block, len(in.scopes))
}

// closeBlock records the ranges of the subprogram whose scopes are scopes[block:end].
func (in *Inlines) closeBlock(block, end int) {
	if block < 0 || block >= end {
		return
	}
	for k := block; k < end && (k == block || in.scopes[k].More && in.scopes[k].Depth == 0); k++ {
		s := in.scopes[k]
		in.tops = append(in.tops, scopeTop{lo: s.Lo, hi: s.Hi, from: block, to: end})
	}
}

// name is a function's name as addr2line gives it: the linkage name found on the entry or
// along its DW_AT_abstract_origin and DW_AT_specification, else the first DW_AT_name.
func (in *Inlines) name(e *dwarf.Entry, hops int) string {
	if n, ok := in.names[e.Offset]; ok {
		return n
	}
	link, plain := in.names1(e, hops)
	n := link
	if n == "" {
		n = plain
	}
	if n == "" {
		n = "??"
	}
	in.names[e.Offset] = n
	return n
}

func (in *Inlines) names1(e *dwarf.Entry, hops int) (link, plain string) {
	if s, ok := e.Val(dwarf.AttrLinkageName).(string); ok && s != "" {
		return s, ""
	}
	if s, ok := e.Val(attrMIPSLinkageName).(string); ok && s != "" {
		return s, ""
	}
	plain, _ = e.Val(dwarf.AttrName).(string)
	if hops >= 8 {
		return "", plain
	}
	for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
		off, ok := e.Val(a).(dwarf.Offset)
		if !ok {
			continue
		}
		rd := in.d.Reader()
		rd.Seek(off)
		o, err := rd.Next()
		if err != nil || o == nil {
			continue
		}
		l, p := in.names1(o, hops+1)
		if l != "" {
			return l, ""
		}
		if plain == "" {
			plain = p
		}
	}
	return "", plain
}

// newArchivedInlines makes Inlines of scopes an archive kept.
func newArchivedInlines(scopes []Scope) *Inlines {
	in := &Inlines{scopes: scopes}
	block := -1
	for k, s := range scopes {
		if s.Depth == 0 && !s.More {
			in.closeBlock(block, k)
			block = k
		}
	}
	in.closeBlock(block, len(scopes))
	return in
}

// Inlines returns the DWARF scopes of the object t describes (nil when it has no DWARF):
// those an archive kept, else the DWARF of t.Path under FS (its build-id checked) or of its
// separate debug file. Read once per table.
func (r *Resolver) Inlines(t *Table) *Inlines {
	if t == nil {
		return nil
	}
	r.framesMu.Lock()
	defer r.framesMu.Unlock()
	if in, ok := r.inlines[t]; ok {
		return in
	}
	if r.inlines == nil {
		r.inlines = map[*Table]*Inlines{}
	}
	in := r.readInlines(t)
	r.inlines[t] = in
	return in
}

func (r *Resolver) readInlines(t *Table) *Inlines {
	switch {
	case len(t.Scopes) > 0:
		return newArchivedInlines(t.Scopes)
	case t.Kind == KindKernel || t.Kind == KindPerfMap || t.Source == "archive" || r.FS == nil:
		return nil
	}
	ra, closer, err := r.readerAt(t.Path)
	if err != nil {
		return nil
	}
	defer closer()
	info, err := ReadELFInfo(ra)
	if err != nil || t.BuildID != "" && info.BuildID != "" && info.BuildID != t.BuildID {
		return nil
	}
	if in := inlinesOf(ra); in != nil {
		return in
	}
	var in *Inlines
	r.eachDebugFile(t.Path, info, func(dra io.ReaderAt, _ string, closer func()) bool {
		defer closer()
		in = inlinesOf(dra)
		return in != nil
	})
	return in
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, the linkage name before DWARF 4.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// ScopesAt returns the scopes of the subprogram holding addr (its ranges and the
// subroutines inlined into it, in order), for an archive to keep; nil when none covers it.
func (in *Inlines) ScopesAt(addr uint64) []Scope {
	if in == nil || in.At(addr) == nil {
		return nil
	}
	i, _ := slices.BinarySearchFunc(in.tops, addr, func(t scopeTop, a uint64) int {
		if t.lo > a {
			return 1
		}
		return -1
	})
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		if t := in.tops[j]; addr < t.hi {
			return in.scopes[t.from:t.to]
		}
	}
	return nil
}

// scopesDWARF reads the DWARF sections function scopes need (not the line table or the
// location lists, which are the bulk of a C library's debug file: f.DWARF would inflate
// them too); nil when f has no DWARF.
func scopesDWARF(f *elf.File) *dwarf.Data {
	read := func(name string) []byte {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil
		}
		b, err := s.Data()
		if err != nil {
			return nil
		}
		return b
	}
	info, abbrev := read(".debug_info"), read(".debug_abbrev")
	if info == nil || abbrev == nil {
		return nil
	}
	d, err := dwarf.New(abbrev, nil, nil, info, nil, nil, read(".debug_ranges"), read(".debug_str"))
	if err != nil {
		return nil
	}
	for _, name := range []string{".debug_addr", ".debug_rnglists", ".debug_str_offsets", ".debug_line_str"} {
		if b := read(name); b != nil {
			if err := d.AddSection(name, b); err != nil {
				return nil
			}
		}
	}
	return d
}

package profile

import (
	"github.com/pmc-tools/pmc/internal/symbol"
)

// Inlined frames: perf shows, for every address of a call chain, the functions inlined
// there (from the DWARF of the object, as addr2line -i gives them) before the function
// itself, each marked "(inlined)", and one whose DWARF name is not its symbol's (glibc's
// __libc_start_main_impl at the symbol __libc_start_main) as an inlined frame too.

type inlKey struct {
	dso   *DSO
	name  string
	start uint64
}

// InlinedSuffix is what perf appends to an inlined frame's name.
const InlinedSuffix = " (inlined)"

// inlined returns the frames perf shows for l in a call chain, the innermost first (nil:
// l alone).
func (b *Builder) inlined(l *Location) []*Location {
	if l.Sym == nil || l.Sym.Unknown || l.DSO.Table == nil || l.DSO.Kernel {
		return nil
	}
	if v, ok := b.inl[l]; ok {
		return v
	}
	names := b.res.Inlines(l.DSO.Table).At(l.Rel)
	var out []*Location
	if len(names) > 1 || len(names) == 1 && symbol.DemangleShort(names[0]) != l.Sym.Name {
		for _, n := range names {
			d := symbol.DemangleShort(n)
			if d == l.Sym.Name {
				out = append(out, l)
				continue
			}
			c := *l
			c.Sym, c.Real, c.id = b.inlineSym(l, d, n), l, 0
			out = append(out, &c)
		}
	}
	if b.inl == nil {
		b.inl = map[*Location][]*Location{}
	}
	b.inl[l] = out
	return out
}

// inlineSym is the symbol of a function named name inlined into l's: perf's made-up symbol,
// with the extent of the one it is inlined into.
func (b *Builder) inlineSym(l *Location, name, raw string) *Symbol {
	k := inlKey{l.DSO, name, l.Sym.Start}
	if y, ok := b.inlSyms[k]; ok {
		return y
	}
	y := &Symbol{Name: name, Raw: raw, DSO: l.DSO, Start: l.Sym.Start, Size: l.Sym.Size, File: l.Sym.File,
		Line: l.Sym.Line, Inlined: true}
	if b.inlSyms == nil {
		b.inlSyms = map[inlKey]*Symbol{}
	}
	b.inlSyms[k] = y
	return y
}

// appendFrame appends l to a call chain, as the frames perf shows for it; the chain's
// first frame (the sampled address) also says whether it became other frames.
func (b *Builder) appendFrame(stack []*Location, l *Location) ([]*Location, bool) {
	if fr := b.inlined(l); fr != nil {
		return append(stack, fr...), true
	}
	return append(stack, l), false
}

// ShownName is a symbol's name as perf shows it in call chains and --children entries:
// an inlined function's is marked.
func (s *Symbol) ShownName() string {
	if s.Inlined {
		return s.Name + InlinedSuffix
	}
	return s.Name
}

// inlinedByName is l as call graphs match an inlined frame: by its name alone (perf's
// match_chain), so one node stands for the function wherever it was inlined.
func (a *Aggregator) inlinedByName(l *Location) *Location {
	if r, ok := a.inlTwins[l]; ok {
		return r
	}
	if a.inlTwins == nil {
		a.inlTwins, a.inlNames = map[*Location]*Location{}, map[string]*Symbol{}
	}
	y, ok := a.inlNames[l.Sym.Name]
	if !ok {
		y = l.Sym
		a.inlNames[l.Sym.Name] = y
	}
	r := l
	if y != l.Sym {
		c := *l
		c.Sym, c.id = y, 0
		r = &c
	}
	a.inlTwins[l] = r
	return r
}

package record

import (
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// KeepCallGraphs adds to the archive's tables what call graphs need on another machine:
// the unwind tables of every sampled object when the recording has --call-graph dwarf
// samples (a recording made on a board unwinds on a laptop), and the DWARF scopes of the
// functions its chains pass through (their inlined frames). The tables are copied, never
// changed in place (they are the resolver's), and may be copies themselves (matched to the
// resolver's by path and build-id, whose unwind tables and scopes it has read already).
func KeepCallGraphs(pf *perfdata.File, p *profile.Profile, res *symbol.Resolver, tables []*symbol.Table) []*symbol.Table {
	dwarf, chains := false, false
	for _, ev := range pf.Events {
		t := ev.Attr.SampleType
		dwarf = dwarf || t&perfdata.SampleRegsUser != 0 && t&perfdata.SampleStackUser != 0
		chains = chains || t&perfdata.SampleCallchain != 0
	}
	if !chains {
		return tables
	}
	// The addresses of each object's frames (by path and build-id: tables may be copies).
	type object struct{ path, id string }
	addrs := map[object][]uint64{}
	orig := map[object]*symbol.Table{}
	seen := map[*profile.Location]bool{}
	for i := range p.Samples {
		for _, l := range p.Samples[i].Stack {
			if l.Real != nil {
				l = l.Real
			}
			if t := l.DSO.Table; t != nil && !l.DSO.Kernel && !seen[l] {
				seen[l] = true
				k := object{t.Path, t.BuildID}
				addrs[k] = append(addrs[k], l.Rel)
				orig[k] = t
			}
		}
	}
	out := make([]*symbol.Table, len(tables))
	for i, t := range tables {
		out[i] = t
		if t.Kind == symbol.KindKernel || t.Kind == symbol.KindPerfMap {
			continue
		}
		k := *t
		o := object{t.Path, t.BuildID}
		r := t
		if orig[o] != nil {
			r = orig[o]
		}
		if dwarf && k.Frames == nil {
			k.Frames, _ = res.Frames(r)
		}
		if len(k.Scopes) == 0 {
			k.Scopes = keptScopes(res.Inlines(r), addrs[o])
		}
		out[i] = &k
	}
	return out
}

// keptScopes are the scopes of the subprograms holding addrs, each once.
func keptScopes(in *symbol.Inlines, addrs []uint64) []symbol.Scope {
	if in == nil {
		return nil
	}
	var out []symbol.Scope
	kept := map[symbol.Scope]bool{}
	for _, a := range addrs {
		sc := in.ScopesAt(a)
		if len(sc) == 0 || kept[sc[0]] {
			continue
		}
		kept[sc[0]] = true
		out = append(out, sc...)
	}
	return out
}

package driver

import (
	"github.com/pmc-tools/pmc/internal/profile"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// KeepCode returns copies of tables with the machine code of the functions samples hit
// (Stack[0]) read from the binaries (under symfs), for the symbol archive; the kernel's and
// those whose binary cannot be read are returned as they are.
func KeepCode(p *profile.Profile, tables []*symbol.Table, symfsDir string) []*symbol.Table {
	c := symbol.NewCodeReader(symbol.NewResolver(symfs(symfsDir)))
	defer c.Close()
	hit := map[*symbol.Table][]*profile.Symbol{}
	seen := map[*profile.Symbol]bool{}
	for i := range p.Samples {
		if st := p.Samples[i].Stack; len(st) > 0 {
			if l := p.Samples[i].Hit(); l.Sym != nil && !l.Sym.Unknown && !l.DSO.Kernel && l.DSO.Table != nil && !seen[l.Sym] {
				seen[l.Sym] = true
				hit[l.DSO.Table] = append(hit[l.DSO.Table], l.Sym)
			}
		}
	}
	out := make([]*symbol.Table, len(tables))
	for i, t := range tables {
		out[i] = t
		var k *symbol.Table
		for _, s := range hit[t] {
			fc, err := c.Function(object(s.DSO), s.Start, s.Size, s.Name)
			if err != nil || fc.Archived != nil {
				continue
			}
			if k == nil {
				cp := *t
				k = &cp
				k.Machine, k.Code, k.CodeMaps = uint16(fc.Machine), nil, nil
			}
			k.Code = append(k.Code, symbol.Code{Addr: s.Start, Bytes: fc.Bytes})
			for _, m := range mapping(fc) {
				if m.Addr >= s.Start && m.Addr < s.Start+s.Size {
					k.CodeMaps = append(k.CodeMaps, symbol.CodeMap{Addr: m.Addr, Kind: m.Kind})
				}
			}
		}
		if k != nil {
			out[i] = k
		}
	}
	return out
}

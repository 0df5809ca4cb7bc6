package profile

import (
	"github.com/pmc-tools/pmc/internal/symbol"
)

// What the unwinder of --call-graph dwarf (fromperf, with package unwind) asks of the
// Builder: the code at an address of a process as the records so far map it.

// Code is the object mapped at a process address: its symbol table (nil when it could
// not be read), the address in the object's own space, and its name.
type Code struct {
	Table  *symbol.Table
	Rel    uint64
	Object string
}

// CodeAt returns the object process pid maps at addr now, ok false when no executable
// mapping covers it.
func (b *Builder) CodeAt(pid int, addr uint64) (Code, bool) {
	sp := b.spaces[pid]
	if sp == nil {
		return Code{}, false
	}
	m, ok := sp.mapping(addr)
	if !ok {
		return Code{}, false
	}
	b.load(m.dso)
	return Code{Table: m.dso.Table, Rel: m.dso.Table.MapAddr(addr, m.start, m.pgoff), Object: m.dso.Name}, true
}

// mapping finds the mapping holding addr.
func (sp *space) mapping(addr uint64) (mapping, bool) {
	lo, hi := 0, len(sp.maps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sp.maps[m].start <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo > 0 && addr < sp.maps[lo-1].end {
		return sp.maps[lo-1], true
	}
	return mapping{}, false
}

// Resolver is where the Builder's symbols come from (the unwinder reads the tables of the
// same objects through it).
func (b *Builder) Resolver() *symbol.Resolver { return b.res }

// Chains says whether samples keep their call chains (IgnoreCallchains was not called).
func (b *Builder) Chains() bool { return !b.noChains }

// Note adds a note about the recording (Profile.Notes).
func (b *Builder) Note(n string) { b.p.Notes = append(b.p.Notes, n) }

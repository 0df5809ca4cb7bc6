package symbol

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// ksyms is the compact form of a kernel's symbols (ReadKallsyms): kallsyms gives no sizes,
// so a symbol runs to the next one and an entry needs only its address, its name and its
// module. Names are kept once, in chunks of text, each name ended by a newline (which no
// name holds). A Sym is made when Lookup first finds it.
type ksyms struct {
	blocks  [][]ksym // sorted by address, one per address, ksymsBlock a block (see at)
	n       int      // how many
	names   []string // the chunks of names
	starts  []uint32 // the offset of each chunk's first name among all names
	modules []string // ksym.mod>>1 - 1 indexes it

	mu   sync.Mutex
	made map[int]*Sym // by index in e
}

// ksym is one symbol of ksyms.
type ksym struct {
	addr uint64
	name uint32 // the offset of its name among all names
	mod  uint32 // module index + 1 (0: the kernel itself) << 1 | 1 for a local symbol ('t')
}

// ksymsChunk is the size of a chunk of names: the names of a kernel fill a dozen.
const ksymsChunk = 256 << 10

// ksymsBuilder gathers the symbols of a kallsyms text as it is read.
type ksymsBuilder struct {
	k       ksyms
	cur     strings.Builder // the chunk being filled
	total   uint64          // bytes of names in the chunks before cur
	modules map[string]uint32
	last    uint64 // the address added last
	sorted  bool   // so far, each address at or after the one before
}

// ksymsBlock is how many symbols a block holds: blocks cost a kernel's 120k symbols their
// size once, where one slice grown by appending costs it ten times over.
const ksymsBlock = 1 << 13

// at is symbol i.
func (k *ksyms) at(i int) *ksym { return &k.blocks[i/ksymsBlock][i%ksymsBlock] }

func (b *ksymsBuilder) add(addr uint64, name, module []byte, local bool) error {
	k := &b.k
	if k.n == 0 {
		b.sorted = true
	} else if addr < b.last {
		b.sorted = false
	}
	b.last = addr
	if k.n%ksymsBlock == 0 {
		k.blocks = append(k.blocks, make([]ksym, 0, ksymsBlock))
	}
	if b.cur.Len()+len(name)+1 > b.cur.Cap() {
		b.flush()
		b.cur.Grow(max(ksymsChunk, len(name)+1))
	}
	off := b.total + uint64(b.cur.Len())
	if off+uint64(len(name)) >= math.MaxUint32 {
		return errors.New("kallsyms: more than 4 GB of symbol names")
	}
	b.cur.Write(name)
	b.cur.WriteByte('\n')
	var mod uint32
	if len(module) > 0 {
		m, ok := b.modules[string(module)]
		if !ok {
			if b.modules == nil {
				b.modules = map[string]uint32{}
			}
			k.modules = append(k.modules, string(module))
			m = uint32(len(k.modules))
			b.modules[string(module)] = m
		}
		mod = m << 1
	}
	if local {
		mod |= 1
	}
	last := &k.blocks[len(k.blocks)-1]
	*last = append(*last, ksym{addr: addr, name: uint32(off), mod: mod})
	k.n++
	return nil
}

// flush ends the chunk being filled.
func (b *ksymsBuilder) flush() {
	if b.cur.Len() == 0 {
		return
	}
	b.k.names = append(b.k.names, b.cur.String())
	b.k.starts = append(b.k.starts, uint32(b.total))
	b.total += uint64(b.cur.Len())
	b.cur = strings.Builder{}
}

// finish sorts the symbols by address (stably) and keeps one per address, perf's choice
// between kallsyms' aliases: the last.
func (b *ksymsBuilder) finish() *ksyms {
	b.flush()
	k := &b.k
	if !b.sorted {
		// Joined, sorted, and cut into blocks again.
		all := slices.Concat(k.blocks...)
		slices.SortStableFunc(all, func(x, y ksym) int { return cmp.Compare(x.addr, y.addr) })
		for i := range k.blocks {
			k.blocks[i] = all[i*ksymsBlock : min((i+1)*ksymsBlock, len(all))]
		}
	}
	n := 0
	for i := 0; i < k.n; i++ {
		e := k.at(i)
		if n > 0 && k.at(n-1).addr == e.addr {
			// perf gives kallsyms' symbols their ends before it chooses between aliases, so
			// every alias but the last at an address has no length, and the last one wins
			// (memcpy, __memcpy, __pi_memcpy: perf 6.1 names the address __pi_memcpy).
			*k.at(n - 1) = *e
			continue
		}
		*k.at(n) = *e
		n++
	}
	k.n = n
	k.blocks = k.blocks[:(n+ksymsBlock-1)/ksymsBlock]
	return k
}

// name is the name at offset off.
func (k *ksyms) name(off uint32) string {
	c := sort.Search(len(k.starts), func(i int) bool { return k.starts[i] > off }) - 1
	s := k.names[c][off-k.starts[c]:]
	return s[:strings.IndexByte(s, '\n')]
}

// sym is e as a Sym of the given size.
func (k *ksyms) sym(e ksym, size uint64) Sym {
	s := Sym{Addr: e.addr, Size: size, Name: k.name(e.name), bind: bindGlobal}
	if e.mod&1 != 0 {
		s.bind = bindLocal
	}
	if m := e.mod >> 1; m > 0 {
		s.Module = k.modules[m-1]
	}
	return s
}

// size is the size of symbol i: up to the next symbol; the last one runs to the end of its
// page and one more, as perf's.
func (k *ksyms) size(i int) uint64 {
	a := k.at(i).addr
	if i+1 < k.n {
		return k.at(i+1).addr - a
	}
	return (a+4095)&^4095 + 4096 - a
}

// lookup is Table.Lookup.
func (k *ksyms) lookup(addr uint64) *Sym {
	i := sort.Search(k.n, func(i int) bool { return k.at(i).addr > addr }) - 1
	if i < 0 {
		return nil
	}
	size := k.size(i)
	if e := k.at(i); addr >= e.addr+size && !(size == 0 && addr == e.addr) { // Table.Lookup's test
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.made[i]; ok {
		return s
	}
	if k.made == nil {
		k.made = map[int]*Sym{}
	}
	s := k.sym(*k.at(i), size)
	k.made[i] = &s
	return &s
}

// all returns every symbol.
func (k *ksyms) all() []Sym {
	out := make([]Sym, k.n)
	for i := range out {
		out[i] = k.sym(*k.at(i), k.size(i))
	}
	return out
}

// Symbols returns the table's symbols, sorted by address (Syms, or a compact table's).
func (t *Table) Symbols() []Sym {
	if t.ksyms != nil {
		return t.ksyms.all()
	}
	return t.Syms
}

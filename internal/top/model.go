package top

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// SortKeys are the keys of perf top --sort that pmc top knows.
func SortKeys() []string { return []string{"comm", "pid", "dso", "sym"} }

// DefaultSort is what a row is, unless --sort says otherwise.
func DefaultSort() []string { return []string{"comm", "dso", "sym"} }

// Options choose how samples become rows.
type Options struct {
	Sort      []string // keys of SortKeys; empty: DefaultSort
	Comms     []string // only these commands (--comm); empty: all
	Pids      []int    // only these processes (--pid); empty: all
	Callchain bool     // keep each row's call chains (-g)
}

// Bounds on what the model keeps.
const (
	maxChains     = 32      // distinct call chains per row
	maxChainDepth = 32      // frames kept of each chain
	maxAddrCache  = 1 << 16 // resolved addresses per process before its cache is cleared
	// maxRows bounds the rows kept between refreshes: a machine running JIT code (QEMU's
	// TCG, a JVM) or stripped binaries makes a row of every distinct unresolved address,
	// and those fade only after minutes. The smallest beyond it are folded into Other.
	maxRows = 1 << 13
	// maxRecent is how many forgotten DSOs keep their symbol tables.
	maxRecent = 32
)

// Model is the live profile. Not safe for concurrent use.
type Model struct {
	opt     Options
	keys    struct{ comm, pid, dso, sym bool }
	res     *symbol.Resolver
	kernel  *dso
	procs   map[int]*proc   // by pid
	threads map[int]*thread // by tid
	dsos    map[dsoKey]*dso
	recent  []*dso // forgotten DSOs, the most recent last: a program run again and again
	// (a compiler, a test binary) is not read again at each run
	rows    map[rowKey]*Row
	comms   map[string]bool
	pids    map[int]bool
	exited  []int // tids (and pids, negated) to forget at the next Decay
	Samples uint64
	Lost    uint64
	// Other is the decayed period of the rows dropped beyond maxRows: still part of the
	// total the percentages are of.
	Other    uint64
	unknownD *dso
}

type thread struct {
	pid  int
	comm string
}

// proc is a process's executable mappings, sorted by start, and the addresses resolved in
// them.
type proc struct {
	maps  []mapping
	cache map[uint64]frame
}

type mapping struct {
	start, end, pgoff uint64
	dso               *dso
}

type dsoKey struct {
	name string
	ino  uint64
}

type dso struct {
	key    dsoKey
	name   string
	kernel bool
	table  *symbol.Table
	err    error
	loaded bool
}

// frame is one resolved address: its DSO and symbol (nil: unresolved, then addr is the
// address in the DSO's file).
type frame struct {
	dso  *dso
	sym  *symbol.Sym
	addr uint64
}

type rowKey struct {
	comm string
	pid  int
	dso  *dso
	sym  *symbol.Sym
	addr uint64
}

// Row is one line of the view: what its key names and its (decayed) period.
type Row struct {
	Comm    string
	Pid     int
	DSO     string
	Symbol  string // "" when the rows are not per symbol
	Kernel  bool
	Period  uint64
	Samples uint64
	chains  map[string]uint64
}

// NewModel returns an empty model resolving through res (binaries) and kernel (the
// running kernel's symbols, nil when unknown).
func NewModel(o Options, res *symbol.Resolver, kernel *symbol.Table) (*Model, error) {
	if len(o.Sort) == 0 {
		o.Sort = DefaultSort()
	}
	m := &Model{opt: o, res: res, procs: map[int]*proc{}, threads: map[int]*thread{}, dsos: map[dsoKey]*dso{},
		rows: map[rowKey]*Row{}, comms: map[string]bool{}, pids: map[int]bool{}}
	for _, k := range o.Sort {
		switch k {
		case "comm":
			m.keys.comm = true
		case "pid":
			m.keys.pid = true
		case "dso":
			m.keys.dso = true
		case "sym":
			m.keys.sym = true
		default:
			return nil, fmt.Errorf("--sort %s: unknown key %q: choose from %s", strings.Join(o.Sort, ","), k, strings.Join(SortKeys(), ","))
		}
	}
	for _, c := range o.Comms {
		m.comms[c] = true
	}
	for _, p := range o.Pids {
		m.pids[p] = true
	}
	m.kernel = &dso{name: symbol.KernelName, kernel: true, table: kernel, loaded: true}
	if kernel == nil {
		m.kernel.err = fmt.Errorf("no kernel symbols")
	}
	m.unknownD = &dso{name: "[unknown]", loaded: true}
	return m, nil
}

// Add takes one record.
func (m *Model) Add(r perfdata.Record) {
	switch r := r.(type) {
	case *perfdata.Sample:
		m.sample(r)
	case *perfdata.Mmap:
		m.mmap(r)
	case *perfdata.Comm:
		m.threads[int(r.TID)] = &thread{pid: int(r.PID), comm: r.Comm}
		if r.Misc&perfdata.MiscCommExec != 0 && r.PID == r.TID {
			delete(m.procs, int(r.PID)) // a new program: its MMAP2s follow
		}
	case *perfdata.Task:
		if r.Type == perfdata.RecordFork {
			m.fork(int(r.PID), int(r.PPID), int(r.TID), int(r.PTID))
		} else {
			m.exited = append(m.exited, int(r.TID))
			if r.PID == r.TID {
				m.exited = append(m.exited, -int(r.PID)-1)
			}
		}
	case *perfdata.Lost:
		m.Lost += r.Lost
	case *perfdata.LostSamples:
		m.Lost += r.Lost
	}
}

func (m *Model) fork(pid, ppid, tid, ptid int) {
	if t := m.threads[ptid]; t != nil {
		m.threads[tid] = &thread{pid: pid, comm: t.comm}
	}
	if pid != ppid {
		if p := m.procs[ppid]; p != nil {
			m.procs[pid] = &proc{maps: p.maps, cache: map[uint64]frame{}}
		}
	}
}

// The mmap flags of MMAP2 and the misc bit of MMAP that mark a data mapping.
const (
	protExec     = 0x4
	miscMmapData = 1 << 13
)

func (m *Model) mmap(r *perfdata.Mmap) {
	if r.Misc&miscMmapData != 0 || r.Type == perfdata.RecordMmap2 && r.Prot != 0 && r.Prot&protExec == 0 {
		return
	}
	mode := r.CPUMode()
	if mode == perfdata.MiscKernel || int32(r.PID) == -1 {
		return // kernel and modules: the kernel table (kallsyms) covers them
	}
	pid := int(r.PID)
	p := m.procs[pid]
	if p == nil {
		p = &proc{}
		m.procs[pid] = p
	}
	nm := mapping{start: r.Addr, end: r.Addr + r.Len, pgoff: r.Pgoff, dso: m.dso(r.Filename, r.Ino)}
	out := make([]mapping, 0, len(p.maps)+1)
	for _, o := range p.maps {
		if o.end <= nm.start || o.start >= nm.end {
			out = append(out, o)
		}
	}
	i := sort.Search(len(out), func(i int) bool { return out[i].start > nm.start })
	out = append(out, mapping{})
	copy(out[i+1:], out[i:])
	out[i] = nm
	p.maps = out
	p.cache = map[uint64]frame{}
}

// dso is the DSO of a file (name and inode: a binary rebuilt in place is another), revived
// from the recently forgotten ones when it is one of them.
func (m *Model) dso(name string, ino uint64) *dso {
	key := dsoKey{name, ino}
	d := m.dsos[key]
	if d == nil {
		if i := slices.IndexFunc(m.recent, func(r *dso) bool { return r.key == key }); i >= 0 {
			d = m.recent[i]
			m.recent = slices.Delete(m.recent, i, i+1)
		} else {
			d = &dso{name: name, key: key}
		}
		m.dsos[key] = d
	}
	return d
}

func (m *Model) load(d *dso) {
	if d.loaded {
		return
	}
	d.loaded = true
	if m.res != nil {
		// A resolver of its own for each DSO: the table lives as long as the DSO does (a
		// shared resolver would keep every table it ever read, and a machine that runs
		// new binaries all day, go test's among them, would grow without end).
		r := &symbol.Resolver{FS: m.res.FS, DebugDir: m.res.DebugDir, NoLines: m.res.NoLines}
		d.table, d.err = r.Open(d.name, "")
	}
}

// trim keeps the maxRows rows of the largest periods.
func (m *Model) trim() {
	periods := make([]uint64, 0, len(m.rows))
	for _, r := range m.rows {
		periods = append(periods, r.Period)
	}
	slices.Sort(periods)
	cut := periods[len(periods)-maxRows] // rows below it go, and those at it past the bound
	atCut := 0
	for _, p := range periods[len(periods)-maxRows:] {
		if p == cut {
			atCut++
		}
	}
	for k, r := range m.rows {
		if r.Period < cut || r.Period == cut && atCut == 0 {
			m.Other += r.Period
			delete(m.rows, k)
		} else if r.Period == cut {
			atCut--
		}
	}
}

// forgetDSOs drops the DSOs that no process maps and no row names, with their tables.
func (m *Model) forgetDSOs() {
	used := map[*dso]bool{}
	for _, p := range m.procs {
		for _, mp := range p.maps {
			used[mp.dso] = true
		}
	}
	for k := range m.rows {
		used[k.dso] = true
	}
	for key, d := range m.dsos {
		if !used[d] {
			delete(m.dsos, key)
			if d.table != nil {
				m.recent = append(m.recent, d)
			}
		}
	}
	if n := len(m.recent) - maxRecent; n > 0 {
		clear(m.recent[:n])
		m.recent = slices.Delete(m.recent, 0, n)
	}
}

// Callchain context markers.
const (
	contextKernel = perfdata.ContextKernel
	contextUser   = perfdata.ContextUser
)

func (m *Model) sample(s *perfdata.Sample) {
	pid, tid := int(int32(s.PID)), int(int32(s.TID))
	comm := fmt.Sprintf(":%d", tid)
	if t := m.threads[tid]; t != nil {
		comm = t.comm
	}
	if len(m.pids) > 0 && !m.pids[pid] || len(m.comms) > 0 && !m.comms[comm] {
		return
	}
	m.Samples++
	p := m.procs[pid]
	mode := s.CPUMode()
	kernel := mode == perfdata.MiscKernel || mode == perfdata.MiscGuestKernel
	leaf := m.resolve(p, s.IP, kernel)
	key := m.key(comm, pid, leaf)
	r := m.rows[key]
	if r == nil {
		r = &Row{Comm: comm, Pid: pid, Kernel: leaf.dso.kernel}
		if m.keys.dso {
			r.DSO = leaf.dso.name
		}
		if m.keys.sym {
			r.Symbol = frameName(leaf)
		}
		m.rows[key] = r
	}
	period := s.Period
	if period == 0 {
		period = 1
	}
	r.Period += period
	r.Samples++
	if m.opt.Callchain && len(s.Callchain) > 0 {
		m.chain(r, p, s.Callchain, kernel, period)
	}
}

// chain adds the callers of a sample (its chain without the sampled frame) to its row.
func (m *Model) chain(r *Row, p *proc, chain []uint64, kernel bool, period uint64) {
	var b strings.Builder
	n := 0
	for _, a := range chain {
		switch {
		case a == contextKernel:
			kernel = true
			continue
		case a == contextUser:
			kernel = false
			continue
		case a >= perfdata.ContextMax:
			continue
		}
		n++
		if n == 1 {
			continue // the sampled frame is the row itself
		}
		if n > maxChainDepth {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(frameName(m.resolve(p, a, kernel)))
	}
	if b.Len() == 0 {
		return
	}
	k := b.String()
	if r.chains == nil {
		r.chains = map[string]uint64{}
	}
	if _, ok := r.chains[k]; !ok && len(r.chains) >= maxChains {
		k = "[other chains]"
	}
	r.chains[k] += period
}

func (m *Model) key(comm string, pid int, f frame) rowKey {
	var k rowKey
	if m.keys.comm {
		k.comm = comm
	}
	if m.keys.pid {
		k.pid = pid
	}
	if m.keys.dso || m.keys.sym {
		k.dso = f.dso
	}
	if m.keys.sym {
		k.sym = f.sym
		if f.sym == nil {
			k.addr = f.addr
		}
	}
	return k
}

// resolve finds the DSO and symbol of an address of process p (nil: unknown), or of the
// kernel.
func (m *Model) resolve(p *proc, addr uint64, kernel bool) frame {
	if kernel {
		var s *symbol.Sym
		if m.kernel.table != nil {
			s = m.kernel.table.Lookup(addr)
		}
		return frame{dso: m.kernel, sym: s, addr: addr}
	}
	if p == nil {
		return frame{dso: m.unknownD, addr: addr}
	}
	if f, ok := p.cache[addr]; ok {
		return f
	}
	f := frame{dso: m.unknownD, addr: addr}
	i := sort.Search(len(p.maps), func(i int) bool { return p.maps[i].start > addr })
	if i > 0 && addr < p.maps[i-1].end {
		mp := p.maps[i-1]
		m.load(mp.dso)
		f.dso = mp.dso
		f.addr = addr - mp.start + mp.pgoff
		if t := mp.dso.table; t != nil {
			rel := t.MapAddr(addr, mp.start, mp.pgoff)
			f.sym = t.Lookup(rel)
		}
	}
	if len(p.cache) >= maxAddrCache {
		p.cache = map[uint64]frame{}
	}
	p.cache[addr] = f
	return f
}

// frameName is a frame as perf top names it: the symbol, else the address.
func frameName(f frame) string {
	if f.sym != nil {
		return symbol.DemangleShort(f.sym.Name)
	}
	return fmt.Sprintf("%#x", f.addr)
}

// Decay ages every row by perf top's factor (period*7/8, per refresh), drops the rows
// that reach zero (and the smallest beyond maxRows), and forgets the threads and processes
// that exited since the last call.
func (m *Model) Decay() {
	m.Other = m.Other * 7 / 8
	for k, r := range m.rows {
		r.Period = r.Period * 7 / 8
		r.Samples = r.Samples * 7 / 8
		if r.Period == 0 {
			delete(m.rows, k)
			continue
		}
		for c, p := range r.chains {
			if p = p * 7 / 8; p == 0 {
				delete(r.chains, c)
			} else {
				r.chains[c] = p
			}
		}
	}
	for _, id := range m.exited {
		if id < 0 {
			delete(m.procs, -id-1)
		} else {
			delete(m.threads, id)
		}
	}
	m.exited = m.exited[:0]
	if len(m.rows) > maxRows {
		m.trim()
	}
	m.forgetDSOs()
}

// Size is how much the model holds: rows, processes, threads, DSOs (for memory tests).
func (m *Model) Size() (rows, procs, threads, dsos int) {
	return len(m.rows), len(m.procs), len(m.threads), len(m.dsos)
}

package symbol

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Resolver finds and caches the Table of every DSO a profile names. Paths are absolute
// ("/usr/lib/libc.so.6") and are read from FS with the leading slash removed, so
// os.DirFS("/") reads the machine and a fstest.MapFS or a snapshot directory stands in for
// it in tests.
type Resolver struct {
	FS fs.FS
	// DebugDir is the global debug directory, "/usr/lib/debug" when empty.
	DebugDir string
	// Archive, when set, supplies symbols of DSOs that are missing or whose build-id differs.
	Archive *Archive
	// Kernel is the kernel's table (ParseKallsyms), nil when unknown.
	Kernel *Table
	// LoadKernel, when set and Kernel is nil, is called (once) the first time the kernel's
	// table is asked for: its result becomes Kernel, so a profile without kernel samples
	// never reads /proc/kallsyms. A failed load leaves Kernel nil (the archive is tried).
	LoadKernel func() (*Table, error)
	// KernelTable, when set, gives the kernel's table for the build-id the recording names
	// for it ("" when none) in place of Kernel, LoadKernel and the archive: the caller
	// decides which kernel's symbols are valid for the recording. Its error says why there
	// are none. Called once per build-id.
	KernelTable func(buildID string) (*Table, error)
	// NoLines skips DWARF line tables (Table.Lines stays nil): for reports that show no
	// source lines. Debug files are then read only for the symbols a stripped binary lacks.
	NoLines bool
	// Shared, when set, holds Tables several Resolvers share (pmc diff's recordings name
	// the same libraries): a binary is read once for all of them.
	Shared *Shared

	mu    sync.Mutex
	cache map[string]*entry
	// The unwind tables and DWARF scopes of tables, read once each (Frames, Inlines).
	framesMu sync.Mutex
	frames   map[*Table]framesEntry
	inlines  map[*Table]*Inlines
}

// Shared is a cache of Tables by path, build-id and line-table choice, for Resolvers that
// read the same FS. Only tables read from the FS are shared: the kernel's, the archives'
// and failures depend on each recording.
type Shared struct {
	mu sync.Mutex
	m  map[string]*Table
}

type entry struct {
	t   *Table
	err error
}

// NewResolver returns a Resolver reading from fsys.
func NewResolver(fsys fs.FS) *Resolver { return &Resolver{FS: fsys} }

// isPerfMap reports whether p is a JIT's symbol map, /tmp/perf-PID.map. String code, not a
// regular expression: nothing compiled at package init, which every launch of pmc pays.
func isPerfMap(p string) bool {
	pid, ok := strings.CutPrefix(p, "/tmp/perf-")
	pid, ok2 := strings.CutSuffix(pid, ".map")
	return ok && ok2 && pid != "" && strings.Trim(pid, "0123456789") == ""
}

// KernelName is the DSO name perf gives the kernel.
const KernelName = "[kernel.kallsyms]"

// Open returns the Table of the DSO at path whose build-id is buildID ("" when unknown).
// The binary on FS is used when its build-id matches; otherwise the archive's copy. A
// binary without .symtab or DWARF gets them from its debug file (by build-id, then by
// .gnu_debuglink). Results, errors included, are cached: each DSO is read once.
func (r *Resolver) Open(p, buildID string) (*Table, error) {
	key := p + "\x00" + buildID
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil {
		r.cache = map[string]*entry{}
	}
	if e, ok := r.cache[key]; ok {
		return e.t, e.err
	}
	shared := r.Shared != nil && !strings.HasPrefix(p, KernelName)
	skey := fmt.Sprintf("%s\x00%s\x00%v", p, strings.ToLower(buildID), r.NoLines)
	if shared {
		r.Shared.mu.Lock()
		t, ok := r.Shared.m[skey]
		r.Shared.mu.Unlock()
		if ok {
			r.cache[key] = &entry{t, nil}
			return t, nil
		}
	}
	t, err := r.open(p, buildID)
	r.cache[key] = &entry{t, err}
	if shared && err == nil && t != nil && t.Source != "archive" {
		r.Shared.mu.Lock()
		if r.Shared.m == nil {
			r.Shared.m = map[string]*Table{}
		}
		r.Shared.m[skey] = t
		r.Shared.mu.Unlock()
	}
	return t, err
}

func (r *Resolver) open(p, buildID string) (*Table, error) {
	buildID = strings.ToLower(buildID)
	if p == KernelName || strings.HasPrefix(p, "[kernel.kallsyms]") {
		if r.KernelTable != nil {
			return r.KernelTable(buildID)
		}
		if r.Kernel == nil && r.LoadKernel != nil {
			load := r.LoadKernel
			r.LoadKernel = nil
			r.Kernel, _ = load() // the caller's LoadKernel keeps its error for its message
		}
		if r.Kernel != nil {
			return r.Kernel, nil
		}
		if t, ok := r.Archive.Table(buildID, KernelName); ok {
			return t, nil
		}
		return nil, errors.New("no kernel symbols")
	}
	if isPerfMap(p) {
		data, err := r.read(p)
		if err != nil {
			return nil, err
		}
		t, err := ParsePerfMap(data)
		if t != nil {
			t.Path = p
		}
		return t, err
	}
	t, err := r.openELF(p, buildID)
	if err == nil {
		return t, nil
	}
	if at, ok := r.Archive.Table(buildID, p); ok {
		return at, nil
	}
	return nil, err
}

func (r *Resolver) openELF(p, buildID string) (*Table, error) {
	if r.FS == nil || !path.IsAbs(p) {
		return nil, fmt.Errorf("%s: not a file", p)
	}
	ra, closer, err := r.readerAt(p)
	if err != nil {
		return nil, err
	}
	defer closer()
	info, err := ReadELFInfo(ra)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if buildID != "" && info.BuildID != "" && info.BuildID != buildID {
		return nil, fmt.Errorf("%s: build-id %s, the recording saw %s (the file changed since)", p, info.BuildID, buildID)
	}
	if !info.HasSymtab && !info.HasDWARF {
		// A stripped binary (a distribution's libc): its debug file has the symbols, and
		// its own .dynsym is read only when there is none.
		if dbg := r.debugFile(p, info); dbg != nil && dbg.Source == "symtab" && len(dbg.Syms) > 0 {
			return &Table{Path: p, BuildID: info.BuildID, Kind: info.Kind, Segments: info.Segments,
				Syms: dbg.Syms, Lines: dbg.Lines, Source: dbg.Path}, nil
		}
	}
	t, err := loadELF(ra, !r.NoLines)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	t.Path = p
	if info.HasSymtab && (info.HasDWARF || r.NoLines) {
		return t, nil
	}
	if dbg := r.debugFile(p, info); dbg != nil {
		if !info.HasSymtab && dbg.Source == "symtab" && len(dbg.Syms) > 0 {
			t.Syms, t.Source = dbg.Syms, dbg.Path
		}
		if t.Lines == nil {
			t.Lines = dbg.Lines
		}
	}
	return t, nil
}

// debugFile loads the separate debug file of the ELF file at p (see eachDebugFile).
func (r *Resolver) debugFile(p string, info ELFInfo) *Table {
	var t *Table
	r.eachDebugFile(p, info, func(ra io.ReaderAt, dp string, closer func()) bool {
		defer closer()
		dt, err := loadELF(ra, !r.NoLines)
		if err != nil {
			return false
		}
		dt.Path = dp
		t = dt
		return true
	})
	return t
}

// eachDebugFile opens the candidates for the separate debug file of the ELF file at p in
// gdb's order, by build-id under the debug directory, then by debug-link beside the file,
// in its .debug directory and under the debug directory (a debug-link candidate must have
// the CRC the link names), and calls use with each until it returns true. use owns the
// file it is given: it calls closer when done with it.
func (r *Resolver) eachDebugFile(p string, info ELFInfo, use func(ra io.ReaderAt, path string, closer func()) bool) {
	dd := r.DebugDir
	if dd == "" {
		dd = "/usr/lib/debug"
	}
	try := func(c string, checkCRC bool) bool {
		if c == p {
			return false
		}
		if checkCRC {
			data, err := r.read(c)
			if err != nil || crc32.ChecksumIEEE(data) != info.DebugCRC {
				return false
			}
			return use(bytes.NewReader(data), c, func() {})
		}
		ra, closer, err := r.readerAt(c)
		if err != nil {
			return false
		}
		return use(ra, c, closer)
	}
	if id := info.BuildID; len(id) > 2 && try(path.Join(dd, ".build-id", id[:2], id[2:]+".debug"), false) {
		return
	}
	if info.Debuglink == "" {
		return
	}
	dir := path.Dir(p)
	for _, c := range []string{path.Join(dir, info.Debuglink), path.Join(dir, ".debug", info.Debuglink), path.Join(dd, dir, info.Debuglink)} {
		if try(c, true) {
			return
		}
	}
}

func (r *Resolver) read(p string) ([]byte, error) {
	if r.FS == nil {
		return nil, fmt.Errorf("%s: no filesystem", p)
	}
	return fs.ReadFile(r.FS, strings.TrimPrefix(path.Clean(p), "/"))
}

// readerAt opens p for random access when FS's files allow it (os.DirFS's do), else reads it.
func (r *Resolver) readerAt(p string) (io.ReaderAt, func(), error) {
	f, err := r.FS.Open(strings.TrimPrefix(path.Clean(p), "/"))
	if err != nil {
		return nil, nil, err
	}
	if ra, ok := f.(io.ReaderAt); ok {
		return ra, func() { f.Close() }, nil
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return bytes.NewReader(data), func() {}, nil
}

// Frame is one resolved address.
type Frame struct {
	Sym    *Sym   // nil when unresolved
	Offset uint64 // address - Sym.Addr
	Addr   uint64 // the address in the DSO's space
	File   string // "" when no line table covers it
	Line   int
}

// Resolve looks addr (in the Table's address space) up: symbol and source line.
func (t *Table) Resolve(addr uint64) Frame {
	fr := Frame{Addr: addr}
	if t == nil {
		return fr
	}
	if s := t.Lookup(addr); s != nil {
		fr.Sym, fr.Offset = s, addr-s.Addr
	}
	fr.File, fr.Line = t.Lines.Lookup(addr)
	return fr
}

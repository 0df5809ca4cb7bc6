package listing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/host"
)

// Entry is one line of `pmc list` and one object of its --json output.
type Entry struct {
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Kind        string   `json:"kind"` // software, hardware, cache, pmu, breakpoint, tracepoint, table, extra
	PMU         string   `json:"pmu,omitempty"`
	Code        string   `json:"code,omitempty"`
	UMask       string   `json:"umask,omitempty"`
	Encoding    string   `json:"encoding,omitempty"`
	Available   bool     `json:"available"`
	Status      string   `json:"status"`
	MapsTo      string   `json:"maps_to,omitempty"`
	Description string   `json:"description,omitempty"`
	Caveat      string   `json:"caveat,omitempty"`
}

// Listing is everything `pmc list` knows about this machine.
type Listing struct {
	Schema      string  `json:"schema"`
	CPU         string  `json:"cpu"`
	Table       string  `json:"table,omitempty"`
	TableTitle  string  `json:"table_title,omitempty"`
	CorePMU     string  `json:"core_pmu"`
	Counters    string  `json:"counters,omitempty"` // the CPU's PMU counters, e.g. "4 + cycle counter"
	Browsed     bool    `json:"browsed,omitempty"`  // --cpu named another CPU's table
	Note        string  `json:"note,omitempty"`
	Tracepoints int     `json:"tracepoints"`
	Events      []Entry `json:"events"`
}

// machineFor is the machine pmc list and explain describe: this one with its CPU's table
// chosen (even where nothing can be counted), or the table --cpu names.
func machineFor(on *host.Machine, cpuFlag string) (*host.Machine, error) {
	m := on.WithTable()
	if cpuFlag == "" {
		if _, err := m.Catalog(); err != nil {
			return nil, err
		}
		return m, nil
	}
	return m.Browse(cpuFlag)
}

// Options are pmc list's flags.
type Options struct {
	Long, JSON bool
	RawDump    bool // --raw-dump: names only, on one line, as perf
	Piped      bool // stdout is no terminal: the text lists every tracepoint, as perf's does
	CHeader    bool // --c-header: the table as a C array for include/pmc.h
	CPU        string
	EventFile  string
}

// List writes `pmc list [PATTERN]` for the machine on (or the table o.CPU names): text,
// JSON (schema pmc.list/v1), --raw-dump's names, the C header, or --cpu help's tables.
// PATTERN is a substring or glob of the names, or a kind (sw, hw, cache, pmu, tracepoint,
// table).
func List(w io.Writer, on *host.Machine, o Options, pattern string) error {
	if o.CPU == "help" {
		cat, err := catalog.Load()
		if err != nil {
			return err
		}
		for _, t := range cat.Tables() {
			fmt.Fprintf(w, "%-20s %4d events  %s\n", t.Name, t.Len(), t.Title)
		}
		return nil
	}
	m, err := machineFor(on, o.CPU)
	if err != nil {
		return err
	}
	if o.CHeader {
		if m.Table == nil {
			return fmt.Errorf("no event table for this CPU (%s): name one with --cpu", m.CPUString())
		}
		return writeCHeader(w, m.Table)
	}
	if o.RawDump {
		return writeRawDump(w, m, pattern)
	}
	var extra *catalog.Table
	if o.EventFile != "" {
		if extra, err = loadEventFile(m, o.EventFile); err != nil {
			return err
		}
	}
	l := collect(m, extra, pattern)
	if pattern == "" && o.Piped && !o.JSON && !m.Browsed {
		// A terminal gets the count of tracepoints; a pipe gets them all, as `perf list | grep
		// sched:` expects.
		l.Events = append(l.Events, collect(m, nil, "tracepoint").Events...)
		l.Tracepoints = 0
	}
	if len(l.Events) == 0 && strings.EqualFold(pattern, "tracepoint") {
		return errors.New("no tracepoints here: tracefs is not mounted or not readable (mount -t tracefs nodev /sys/kernel/tracing)")
	}
	if len(l.Events) == 0 {
		return fmt.Errorf("%w %q; run pmc list without a pattern to see them all", ErrNoMatch, pattern)
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(l)
	}
	return writeListText(w, l, o.Long)
}

// loadEventFile reads --event-file: one JSON file or every .json file of a directory.
func loadEventFile(m *host.Machine, p string) (*catalog.Table, error) {
	cat, err := m.Catalog()
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("--event-file: %w", err)
	}
	var fsys fs.FS = os.DirFS(p)
	if !st.IsDir() {
		fsys = singleFile{dir: os.DirFS(filepath.Dir(p)), name: filepath.Base(p)}
	}
	return cat.LoadExtra(fsys)
}

// singleFile is a directory holding one file of another directory.
type singleFile struct {
	dir  fs.FS
	name string
}

func (s singleFile) Open(name string) (fs.File, error) {
	if name == "." || name == s.name {
		return s.dir.Open(name)
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (s singleFile) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	st, err := fs.Stat(s.dir, s.name)
	if err != nil {
		return nil, err
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(st)}, nil
}

// matchPattern reports whether e is selected by pattern (see the command's help).
func matchPattern(pattern string, e Entry) bool {
	if pattern == "" {
		return true
	}
	p := strings.ToLower(pattern)
	switch p {
	case "sw", "software":
		return e.Kind == "software"
	case "hw", "hardware":
		return e.Kind == "hardware"
	case "cache":
		return e.Kind == "cache"
	case "pmu":
		return e.Kind == "pmu"
	case "tracepoint":
		return e.Kind == "tracepoint"
	case "table":
		return e.Kind == "table" || e.Kind == "extra"
	}
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		n = strings.ToLower(n)
		if strings.ContainsAny(p, "*?[") {
			if ok, _ := path.Match(p, n); ok {
				return true
			}
		} else if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

// ErrNoMatch is List's error when no event matches the pattern.
var ErrNoMatch = errors.New("no event matches")

func sortedEntries(es []Entry) []Entry {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es
}

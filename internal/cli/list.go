package cli

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

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/host"
)

// listEntry is one line of `pmc list` and one object of its --json output.
type listEntry struct {
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

// listing is everything `pmc list` knows about this machine.
type listing struct {
	Schema      string      `json:"schema"`
	CPU         string      `json:"cpu"`
	Table       string      `json:"table,omitempty"`
	TableTitle  string      `json:"table_title,omitempty"`
	CorePMU     string      `json:"core_pmu"`
	Counters    string      `json:"counters,omitempty"` // the CPU's PMU counters, e.g. "4 + cycle counter"
	Browsed     bool        `json:"browsed,omitempty"`  // --cpu named another CPU's table
	Note        string      `json:"note,omitempty"`
	Tracepoints int         `json:"tracepoints"`
	Events      []listEntry `json:"events"`
}

type listFlags struct {
	long, json bool
	rawDump    bool // --raw-dump: names only, on one line, as perf
	piped      bool // stdout is no terminal: the text lists every tracepoint, as perf's does
	cHeader    bool
	cpu        string
	eventFile  string
}

func newListCmd(e *env) *cobra.Command {
	f := &listFlags{}
	cmd := &cobra.Command{
		Use:   "list [PATTERN]",
		Short: "list the events this machine can count, and the catalog's events for its CPU",
		Long: `List software events, generic hardware and cache events (with the raw event each one
means on this CPU), other PMUs' sysfs events, and the event table for the CPU. Events that
cannot be counted here say so. PATTERN is a substring or glob (cache-*, *tlb*), or one of
sw, hw, cache, pmu, tracepoint, table.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := noEmpty(cmd, "cpu", "event-file"); err != nil {
				return err
			}
			pattern := ""
			if len(args) == 1 {
				pattern = args[0]
			}
			f.piped = !isTerminal(e.stdout)
			return runList(e.stdout, e.machine(), f, pattern)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.long, "long", false, "print descriptions and caveats")
	fl.BoolVar(&f.json, "json", false, "print JSON (schema pmc.list/v1)")
	fl.BoolVar(&f.rawDump, "raw-dump", false, "print only the names of the countable events, on one line, as perf list --raw-dump [hw|sw|cache|pmu|tracepoint|metrics|metricgroups]")
	fl.BoolVar(&f.cHeader, "c-header", false, "print the CPU's event table as a C array for include/pmc.h (PMC_EVENT_TABLE)")
	fl.StringVar(&f.cpu, "cpu", "", "use this CPU's table instead of the detected one (pmc list --cpu help lists them)")
	fl.StringVar(&f.eventFile, "event-file", "", "also read events from a pmu-events or Intel perfmon JSON file or directory")
	return cmd
}

// noEmpty rejects the named flags when given with an empty value ("--cpu ”" would mean
// "this CPU").
func noEmpty(cmd *cobra.Command, names ...string) error {
	for _, n := range names {
		if f := cmd.Flags().Lookup(n); f != nil && f.Changed && strings.TrimSpace(f.Value.String()) == "" {
			return fmt.Errorf("--%s: give a value (an empty one means nothing)", n)
		}
	}
	return nil
}

// listMachine is the machine pmc list and explain describe: this one with its CPU's table
// chosen (even where nothing can be counted), or the table --cpu names.
func listMachine(on *host.Machine, cpuFlag string) (*host.Machine, error) {
	m := on.WithTable()
	if cpuFlag == "" {
		if _, err := m.Catalog(); err != nil {
			return nil, err
		}
		return m, nil
	}
	return m.Browse(cpuFlag)
}

func runList(w io.Writer, on *host.Machine, f *listFlags, pattern string) error {
	if f.cpu == "help" {
		cat, err := catalog.Load()
		if err != nil {
			return err
		}
		for _, t := range cat.Tables() {
			fmt.Fprintf(w, "%-20s %4d events  %s\n", t.Name, t.Len(), t.Title)
		}
		return nil
	}
	m, err := listMachine(on, f.cpu)
	if err != nil {
		return err
	}
	if f.cHeader {
		if m.Table == nil {
			return fmt.Errorf("no event table for this CPU (%s): name one with --cpu", m.CPUString())
		}
		return writeCHeader(w, m.Table)
	}
	if f.rawDump {
		return writeRawDump(w, m, pattern)
	}
	var extra *catalog.Table
	if f.eventFile != "" {
		if extra, err = loadEventFile(m, f.eventFile); err != nil {
			return err
		}
	}
	l := collect(m, extra, pattern)
	if pattern == "" && f.piped && !f.json && !m.Browsed {
		// A terminal gets the count of tracepoints; a pipe gets them all, as `perf list | grep
		// sched:` expects.
		l.Events = append(l.Events, collect(m, nil, "tracepoint").Events...)
		l.Tracepoints = 0
	}
	if len(l.Events) == 0 && strings.EqualFold(pattern, "tracepoint") {
		return errors.New("no tracepoints here: tracefs is not mounted or not readable (mount -t tracefs nodev /sys/kernel/tracing)")
	}
	if len(l.Events) == 0 {
		return fmt.Errorf("%w %q; run pmc list without a pattern to see them all", errNoMatch, pattern)
	}
	if f.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(l)
	}
	return writeListText(w, l, f.long)
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
func matchPattern(pattern string, e listEntry) bool {
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

var errNoMatch = errors.New("no event matches")

func sortedEntries(es []listEntry) []listEntry {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es
}

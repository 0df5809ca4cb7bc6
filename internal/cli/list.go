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
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/pmu"
)

// hostFS returns the machine's root and /sys as file systems; tests point it at snapshots.
var hostFS = func() (root, sys fs.FS) { return os.DirFS("/"), os.DirFS("/sys") }

// softwareEvents are the kernel's software counters, canonical name first (perf 6.1 spellings).
var softwareEvents = []struct {
	names []string
	desc  string
}{
	{[]string{"cpu-clock"}, "CPU time from a per-CPU high-resolution timer, in ns (shown in msec)"},
	{[]string{"task-clock"}, "time the measured tasks spent on a CPU, in ns (shown in msec)"},
	{[]string{"page-faults", "faults"}, "page faults, minor and major"},
	{[]string{"minor-faults"}, "page faults served without I/O"},
	{[]string{"major-faults"}, "page faults that needed I/O"},
	{[]string{"context-switches", "cs"}, "times a measured task was switched out"},
	{[]string{"cpu-migrations", "migrations"}, "times a measured task moved to another CPU"},
	{[]string{"alignment-faults"}, "unaligned accesses fixed up by the kernel (never on x86)"},
	{[]string{"emulation-faults"}, "instructions the kernel emulated"},
	{[]string{"dummy"}, "counts nothing; carries side-band records for sampling"},
	{[]string{"bpf-output"}, "output channel for BPF programs"},
	{[]string{"cgroup-switches"}, "context switches that changed cgroup"},
}

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
	Note        string      `json:"note,omitempty"`
	Tracepoints int         `json:"tracepoints"`
	Events      []listEntry `json:"events"`
}

type listFlags struct {
	long, json bool
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
			pattern := ""
			if len(args) == 1 {
				pattern = args[0]
			}
			return runList(e.stdout, f, pattern)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.long, "long", false, "print descriptions and caveats")
	fl.BoolVar(&f.json, "json", false, "print JSON (schema pmc.list/v1)")
	fl.StringVar(&f.cpu, "cpu", "", "use this CPU's table instead of the detected one (pmc list --cpu help lists them)")
	fl.StringVar(&f.eventFile, "event-file", "", "also read events from a pmu-events or Intel perfmon JSON file or directory")
	return cmd
}

// machine is what pmc found out about the host and which table it uses.
type machine struct {
	cat       *catalog.Catalog
	cpu       catalog.CPU
	cpuErr    error
	table     *catalog.Table
	countable bool // hardware events of table can be counted here
	note      string
	sys       *pmu.System
	sysFS     fs.FS
	core      *pmu.PMU
	// advertised holds the event numbers the core PMU lists in sysfs; on Armv8 that is what
	// PMCEID0/1 advertise. nil when the PMU lists none (then nothing is inferred).
	advertised map[uint64]bool
	// driver is the table whose generic map the running kernel applies when that is not the
	// CPU's own: an Armv8 core driven by the generic PMUv3 driver (QEMU, ACPI machines) gets
	// none of its CPU-specific fallbacks.
	driver *catalog.Table
}

// loadMachine identifies the CPU and picks its table (or the one --cpu names).
func loadMachine(cpuFlag string) (*machine, error) {
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	root, sysFS := hostFS()
	m := &machine{cat: cat, sysFS: sysFS}
	m.cpu, m.cpuErr = catalog.Identify(root)
	if m.sys, err = pmu.Discover(sysFS); err == nil {
		m.core = m.sys.Core()
		m.advertised = advertisedCodes(m.core)
	} else {
		m.sys = nil
	}
	detected, exact := cat.ForCPU(m.cpu)
	if m.cpuErr == nil && !exact {
		if detected = cat.Fallback(m.cpu); detected != nil {
			m.note = fmt.Sprintf("no table for this exact CPU; using the architecture's table %s", detected.Name)
		}
	}
	m.table = detected
	if cpuFlag != "" {
		t, ok := cat.ByName(cpuFlag)
		if !ok {
			return nil, fmt.Errorf("unknown --cpu %q; use one of: %s", cpuFlag, strings.Join(cat.Names(), ", "))
		}
		m.table = t
	}
	m.countable = m.core != nil && m.table != nil && detected == m.table
	if m.countable && m.table.Arch == "armv8" && strings.HasPrefix(m.core.Name, "armv8_pmuv3") {
		if d, ok := cat.ByName("armv8"); ok && d != m.table {
			m.driver = d
			m.note = fmt.Sprintf("the kernel drives %s with its generic PMUv3 driver, so the %s-specific fallbacks of the generic names do not apply", m.core.Name, m.table.Name)
		}
	}
	return m, nil
}

func (m *machine) cpuString() string {
	if m.cpuErr != nil {
		return "unidentified (" + m.cpuErr.Error() + ")"
	}
	return m.cpu.String()
}

// hwStatus says whether a generic name (or, with supported=true, a table event reached through
// one) can be counted on this machine.
func (m *machine) hwStatus(supported bool) (bool, string) {
	switch {
	case !supported && m.driver != nil:
		return false, "not supported by the generic PMUv3 driver"
	case !supported:
		return false, "not supported on " + m.table.Name
	case m.core == nil:
		return false, "not available here: no cpu PMU in sysfs"
	case !m.countable:
		return false, "not countable here: the table is not this CPU's"
	}
	return true, "countable"
}

// effective is what the running kernel does with a generic name: the CPU table's mapping, or
// the generic PMUv3 driver's when that driver runs the PMU.
func (m *machine) effective(canon string) catalog.Mapping {
	g, _ := m.table.MapGeneric(canon)
	if m.driver != nil {
		g, _ = m.driver.MapGeneric(canon)
	}
	return g
}

// genericStatus is hwStatus for a mapping, adding what the core PMU advertises: an Armv8
// kernel only uses a common event (below 0x40) of its generic map if PMCEID lists it.
func (m *machine) genericStatus(g catalog.Mapping) (bool, string) {
	ok, status := m.hwStatus(g.Supported)
	if ok && m.table.Arch == "armv8" && m.advertised != nil && g.Event.Code < 0x40 && !m.advertised[g.Event.Code] {
		return false, fmt.Sprintf("not advertised by %s (PMCEID lacks 0x%02x)", m.core.Name, g.Event.Code)
	}
	return ok, status
}

// advertisedCodes reads event=0x.. from the sysfs events of p.
func advertisedCodes(p *pmu.PMU) map[uint64]bool {
	if p == nil || len(p.Events) == 0 {
		return nil
	}
	out := map[uint64]bool{}
	for _, a := range p.Events {
		for _, term := range strings.Split(a.Terms, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(term), "=")
			if !ok || k != "event" {
				continue
			}
			if code, err := strconv.ParseUint(v, 0, 64); err == nil {
				out[code] = true
			}
		}
	}
	return out
}

// tableStatus says whether the table's own events can be counted here as raw events.
func (m *machine) tableStatus() (bool, string) {
	if m.countable {
		return true, "countable"
	}
	return false, "table (not countable here)"
}

func runList(w io.Writer, f *listFlags, pattern string) error {
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
	m, err := loadMachine(f.cpu)
	if err != nil {
		return err
	}
	var extra *catalog.Table
	if f.eventFile != "" {
		if extra, err = loadEventFile(m.cat, f.eventFile); err != nil {
			return err
		}
	}
	l := m.collect(extra, pattern)
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
func loadEventFile(cat *catalog.Catalog, p string) (*catalog.Table, error) {
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

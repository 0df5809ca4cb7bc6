package host

import (
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/pmu"
	"github.com/pmc-tools/pmc/internal/unix"
)

// Machine is what pmc knows of one machine. Read it, never modify it (Browse copies).
type Machine struct {
	Hostname   string
	Kernel     string    // as uname -srvm prints it: "Linux 6.1.0-18-amd64 #1 SMP ... x86_64"
	Date       time.Time // when the facts were read
	Processors int       // online CPUs
	CPU        catalog.CPU
	CPUErr     error       // why the CPU could not be identified
	PMUs       *pmu.System // every PMU in sysfs (empty, never nil)
	Sys        fs.FS       // /sys: tracepoint ids, caches
	Core       *pmu.PMU    // the CPU's own PMU; nil without a hardware PMU (most VMs)

	// Table is the CPU's event table (or the one Browse chose); nil when pmc has none.
	Table *catalog.Table
	// Countable: Table is this machine's own and it has a core PMU, so the table's events
	// and the generic names it maps can be counted here.
	Countable bool
	// Driver is the table whose generic map the running kernel applies when it is not
	// Table's: an Armv8 core driven by the generic PMUv3 driver (QEMU, ACPI machines).
	Driver *catalog.Table
	// Note says how the table was chosen when it is not an exact match.
	Note string
	// Browsed: Table is another CPU's, chosen to be looked at (pmc list/explain --cpu);
	// nothing of it is counted here.
	Browsed bool
	// Advertised holds the event numbers the core PMU lists in sysfs (on Armv8 what
	// PMCEID0/1 advertise); nil when it lists none, and then nothing is inferred.
	Advertised map[uint64]bool

	root    fs.FS // "/": the files Probe read, for reads on demand (meminfo)
	catalog func() (*catalog.Catalog, error)
}

// readRoot reads a file of the machine's root ("proc/meminfo").
func (m *Machine) readRoot(name string) ([]byte, error) {
	if m.root == nil {
		return nil, fs.ErrNotExist
	}
	return fs.ReadFile(m.root, name)
}

// Paranoid is kernel.perf_event_paranoid as the machine's procfs says now ("?" when it cannot
// be read): what a permission refusal of perf_event_open depends on.
func (m *Machine) Paranoid() string {
	b, err := m.readRoot("proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// Catalog is the event catalog: built into pmc, nothing is read or parsed.
func (m *Machine) Catalog() (*catalog.Catalog, error) { return m.catalog() }

// Probe reads the machine whose root is root ("/") and whose sysfs is sys ("/sys"). A machine
// without sysfs still has the kernel's fixed event types: missing facts leave fields empty,
// never fail. The catalog is loaded only when the machine has a core PMU or a caller asks.
func Probe(root, sys fs.FS) *Machine {
	m := &Machine{Date: time.Now(), Sys: sys, root: root, catalog: catalog.Load}
	if b, err := fs.ReadFile(root, "proc/sys/kernel/hostname"); err == nil {
		m.Hostname = strings.TrimSpace(string(b))
	}
	m.Kernel = kernelString(root)
	m.PMUs = &pmu.System{PMUs: map[string]*pmu.PMU{}}
	if s, err := pmu.Discover(sys); err == nil && s != nil {
		m.PMUs = s
	}
	if m.PMUs.Online == nil { // no event_source devices: the CPUs are still there
		if b, err := fs.ReadFile(sys, pmu.OnlineFile); err == nil {
			m.PMUs.Online, _ = pmu.ParseCPUList(string(b))
		}
	}
	m.Processors = len(m.PMUs.Online)
	m.Core = m.PMUs.Core()
	m.Advertised = advertisedCodes(m.Core)
	m.CPU, m.CPUErr = catalog.Identify(root)
	if m.Core != nil {
		m.chooseTable()
	}
	return m
}

// live is the machine pmc runs on, probed at the first call of Live (a sync.Once rather than
// sync.OnceValue, whose closures are allocated at package init).
var live struct {
	once sync.Once
	m    *Machine
}

// Live probes the machine pmc runs on, once per process.
func Live() *Machine {
	live.once.Do(func() {
		m := Probe(unix.DirFS("/"), unix.DirFS("/sys"))
		if m.Hostname == "" {
			m.Hostname, _ = os.Hostname()
		}
		if m.Processors == 0 {
			m.Processors = runtime.NumCPU()
		}
		live.m = m
	})
	return live.m
}

// Empty is a machine that knows nothing: no PMUs, no CPU, no table. Events resolve to the
// kernel's fixed types only; the fake backend counts on it so that its output is the same on
// every host.
func Empty() *Machine {
	return Probe(memFS{}, memFS{})
}

// chooseTable picks the CPU's table: its own, or its architecture's with a note.
func (m *Machine) chooseTable() {
	cat, err := m.catalog()
	if err != nil || m.CPUErr != nil {
		return
	}
	t, exact := cat.ForCPU(m.CPU)
	if !exact {
		if t = cat.Fallback(m.CPU); t != nil {
			m.Note = fmt.Sprintf("no table for this exact CPU; using the architecture's table %s", t.Name)
		}
	}
	m.Table = t
	m.Countable = m.Core != nil && t != nil
	if m.Countable && t.Arch == "armv8" && strings.HasPrefix(m.Core.Name, "armv8_pmuv3") {
		if d, ok := cat.ByName("armv8"); ok && d != t {
			m.Driver = d
			m.Note = fmt.Sprintf("the kernel drives %s with its generic PMUv3 driver, so the %s-specific fallbacks of the generic names do not apply", m.Core.Name, t.Name)
		}
	}
}

// Browse returns a copy of m showing the table named name (pmc list/explain --cpu): its
// events are not countable here unless it is the machine's own table.
func (m *Machine) Browse(name string) (*Machine, error) {
	cat, err := m.catalog()
	if err != nil {
		return nil, err
	}
	t, ok := cat.ByName(name)
	if !ok {
		return nil, fmt.Errorf("unknown --cpu %q; use one of: %s", name, strings.Join(cat.Names(), ", "))
	}
	c := *m
	if t != m.Table {
		c.Table, c.Countable, c.Driver, c.Note, c.Browsed = t, false, nil, "", true
	}
	return &c, nil
}

// WithTable returns m with its own table chosen even without a core PMU, for pmc list and
// explain, which describe the CPU's events where they cannot be counted too.
func (m *Machine) WithTable() *Machine {
	if m.Table != nil || m.CPUErr != nil {
		return m
	}
	c := *m
	c.chooseTable()
	return &c
}

// CPUString names the CPU as Linux identifies it, or why it could not be identified.
func (m *Machine) CPUString() string {
	if m.CPUErr != nil {
		return "unidentified (" + m.CPUErr.Error() + ")"
	}
	return m.CPU.String()
}

// kernelString is uname's "-s -r -v -m" from procfs: "Linux 6.1.0-18-amd64 #1 SMP ... x86_64".
func kernelString(root fs.FS) string {
	var parts []string
	for _, name := range []string{"ostype", "osrelease", "version", "arch"} {
		if b, err := fs.ReadFile(root, "proc/sys/kernel/"+name); err == nil {
			if s := strings.TrimSpace(string(b)); s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, " ")
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

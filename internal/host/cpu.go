package host

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
)

// cpuTable is the table written for this exact CPU, whether or not it has a core PMU (the
// facts of a CPU hold without one); nil when pmc has none.
func (m *Machine) cpuTable() *catalog.Table {
	if m.Browsed {
		return m.Table // --cpu NAME: that CPU's table, whatever this machine is
	}
	if m.CPUErr != nil {
		return nil
	}
	cat, err := m.catalog()
	if err != nil {
		return nil
	}
	t, exact := cat.ForCPU(m.CPU)
	if !exact {
		return nil
	}
	return t
}

// assumedCounters is the planner's guess for a CPU pmc has no facts for: 4 general counters
// plus cycles and instructions on counters of their own, which holds on the common cores.
var assumedCounters = catalog.Counters{General: 4, Cycle: true, Fixed: []string{"instructions"}, Assumed: true}

// Counters are the CPU's counters from its table, or an assumption (then assumed is true).
func (m *Machine) Counters() (c catalog.Counters, assumed bool) {
	if t := m.cpuTable(); t != nil && t.Counters != nil {
		return *t.Counters, t.Counters.Assumed
	}
	return assumedCounters, true
}

// IssueWidth is the plausibility bound for IPC: the most instructions the core issues per
// cycle, 0 (no check) when pmc does not know it.
func (m *Machine) IssueWidth() float64 {
	if t := m.cpuTable(); t != nil {
		return t.IssueWidth
	}
	return 0
}

// knownArmCore is the table of an Arm core whose facts pmc has. Not an Arm CPU: nil, and no
// table is looked at.
func (m *Machine) knownArmCore() *catalog.Table {
	if m.CPU.ISA != "arm" && !m.Browsed {
		return nil
	}
	if t := m.cpuTable(); t != nil && t.Counters != nil {
		return t
	}
	return nil
}

// ArmCoreArch is the architecture ("armv6", "armv7" or "armv8") of the Arm core whose table
// pmc has (or of the table --cpu browses), "" otherwise.
func (m *Machine) ArmCoreArch() string {
	if t := m.knownArmCore(); t != nil {
		return t.Arch
	}
	return ""
}

// CorePMUName is the name of the core PMU counted here ("cpu", "armv7_cortex_a7"), "" without
// one or when a browsed table (--cpu) stands for another CPU.
func (m *Machine) CorePMUName() string {
	if m.Core == nil || m.Browsed {
		return ""
	}
	return m.Core.Name
}

// CPUModel is the CPU line of a report: the event table's title when pmc has one for this
// Arm CPU, else the model name, with the identity Linux reports.
func (m *Machine) CPUModel() string {
	if m.Browsed && m.Table != nil {
		return m.Table.Title + " (--cpu " + m.Table.Name + ")"
	}
	if m.CPUErr != nil {
		return "unidentified (" + m.CPUErr.Error() + ")"
	}
	id := m.CPU.String()
	if m.CPU.ISA == "x86" {
		id = fmt.Sprintf("%s family 0x%x model 0x%x", m.CPU.Vendor, m.CPU.Family, m.CPU.Model)
	}
	name := m.CPU.ModelName
	if t := m.cpuTable(); t != nil && m.CPU.ISA == "arm" {
		name = t.Title
	}
	if name == "" {
		return id
	}
	return name + "; " + id
}

// PMULine describes the core PMU and its counters, for reports and -v.
func (m *Machine) PMULine() string {
	if m.Core == nil {
		return "none (no hardware PMU in sysfs: only software events can be counted)"
	}
	c, assumed := m.Counters()
	s := fmt.Sprintf("%s, %d general counters", m.Core.Name, c.General)
	if c.Cycle {
		s += " + cycle counter"
	}
	for _, f := range c.Fixed {
		s += " + " + f
	}
	if t := m.knownArmCore(); assumed {
		s += " (assumed for planning)"
	} else if t != nil {
		s += fmt.Sprintf(" (%s, issues up to %g per cycle)", t.Name, t.IssueWidth)
	}
	return s
}

// RawEventName names a raw code from the CPU's table ("EXEC_INSTR: instructions executed"),
// "" when pmc has no table or no such event.
func (m *Machine) RawEventName(code uint64) string {
	t := m.cpuTable()
	if t == nil || m.CPU.ISA != "arm" {
		return ""
	}
	if evs := t.ByCode(code); len(evs) > 0 {
		return evs[0].Name + ": " + evs[0].Brief
	}
	return ""
}

// rawCode is the core PMU's raw code the kernel uses for a generic name, when the table is
// countable here and maps it.
func (m *Machine) rawCode(canon string) (uint64, bool) {
	if !m.Countable {
		return 0, false
	}
	g := m.Effective(canon)
	if !g.Supported {
		return 0, false
	}
	return g.Event.Config(m.Table.Arch), true
}

// Canonical is the counter the kernel programs for an event of type typ and config: a
// PERF_TYPE_RAW event is the core PMU's type, and a generic event is the raw event the CPU's
// driver maps it to. Without a core PMU nothing changes (and no table is looked at).
func (m *Machine) Canonical(typ uint32, config uint64) (uint32, uint64) {
	if m.Core == nil {
		return typ, config
	}
	switch typ {
	case perfevent.TypeRaw:
		typ = m.Core.Type
	case perfevent.TypeHardware, perfevent.TypeHWCache:
		if sym, ok := events.SymbolOf(typ, config); ok {
			if code, ok := m.rawCode(sym.Name); ok {
				typ, config = m.Core.Type, code
			}
		}
	}
	return typ, config
}

// RawCode is the core PMU's raw code for a generic event name ("cpu-cycles"), when this
// machine's table is countable here and maps it.
func (m *Machine) RawCode(canon string) (uint64, bool) { return m.rawCode(canon) }

// Identity is m as saved results name it (result.Machine).
func (m *Machine) Identity() *result.Machine {
	id := &result.Machine{Host: m.Hostname, Kernel: m.Kernel, CPUs: m.Processors, PMU: m.PMULine()}
	if m.CPUErr == nil && m.CPU.ISA != "" {
		model := m.CPUModel() // "<table title or model name>; <identity>": the title may hold "; " too
		if i := strings.LastIndex(model, "; "); i >= 0 {
			model = model[:i]
		}
		id.CPU, id.CPUID = model, m.CPU.String()
	}
	return id
}

package host

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/perfevent"
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

// knownArmCore is the table of an Arm core whose facts pmc has.
func (m *Machine) knownArmCore() *catalog.Table {
	if t := m.cpuTable(); t != nil && (m.CPU.ISA == "arm" || m.Browsed) && t.Counters != nil {
		return t
	}
	return nil
}

// MetricArch is the architecture of the built-in metrics (metrics.Arch): from the core PMU's
// name, else from the Arm core pmc knows, else the generic names.
func (m *Machine) MetricArch() string {
	name := ""
	if m.Core != nil && !m.Browsed {
		name = m.Core.Name
	}
	if a := metrics.Arch(name); a != metrics.ArchGeneric {
		return a
	}
	if t := m.knownArmCore(); t != nil {
		return map[string]string{"armv6": metrics.ArchARM1176, "armv7": metrics.ArchARMv7, "armv8": metrics.ArchARMv8}[t.Arch]
	}
	return metrics.ArchGeneric
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

// Planner is the co-scheduling planner's view of the CPU's counters: how many general ones,
// whether cycles have their own, and which encodings are cycles, instructions and fixed,
// with Canon mapping a generic event to the raw event the kernel programs for it.
func (m *Machine) Planner() (metrics.Machine, bool) {
	c, assumed := m.Counters()
	pm := metrics.Machine{Counters: c.General, CycleCounter: c.Cycle}
	pm.Cycles = []metrics.Encoding{{Type: perfevent.TypeHardware, Config: perfevent.HWCPUCycles}}
	pm.Instructions = []metrics.Encoding{{Type: perfevent.TypeHardware, Config: perfevent.HWInstructions}}
	for _, f := range c.Fixed {
		if s, ok := events.LookupSymbol(f); ok {
			pm.Fixed = append(pm.Fixed, m.Canon(metrics.Encoding{Type: s.Type, Config: s.Config}))
		}
	}
	if code, ok := m.rawCode("cpu-cycles"); ok {
		pm.Cycles = append(pm.Cycles, metrics.Encoding{Type: m.Core.Type, Config: code})
	}
	if code, ok := m.rawCode("instructions"); ok {
		pm.Instructions = append(pm.Instructions, metrics.Encoding{Type: m.Core.Type, Config: code})
	}
	pm.Canon = m.Canon
	return pm, assumed
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

// Canon maps an encoding to the counter the kernel programs: PERF_TYPE_RAW is the core PMU's
// type, and a generic event is the raw event the CPU's driver maps it to. Without a core PMU
// nothing changes (and the catalog is not loaded).
func (m *Machine) Canon(e metrics.Encoding) metrics.Encoding {
	if m.Core == nil {
		return e
	}
	switch e.Type {
	case perfevent.TypeRaw:
		e.Type = m.Core.Type
	case perfevent.TypeHardware, perfevent.TypeHWCache:
		if sym, ok := events.SymbolOf(e.Type, e.Config); ok {
			if code, ok := m.rawCode(sym.Name); ok {
				e.Type, e.Config = m.Core.Type, code
			}
		}
	}
	return e
}

// Encoding is a resolved event as the planner compares them: its attr's identity and the
// privilege levels it counts.
func Encoding(a perfevent.Attr) metrics.Encoding {
	var mods strings.Builder
	if !a.ExcludeUser {
		mods.WriteByte('u')
	}
	if !a.ExcludeKernel {
		mods.WriteByte('k')
	}
	if !a.ExcludeHV {
		mods.WriteByte('h')
	}
	return metrics.Encoding{Type: a.Type, Config: a.Config, Config1: a.Config1, Config2: a.Config2, Mods: mods.String()}
}

// Resolver resolves metric operands on m for the planner: each must be one event.
func (m *Machine) Resolver() metrics.Resolver {
	return func(name string) (metrics.Encoding, error) {
		groups, err := m.Resolve(name, events.Options{})
		if err != nil {
			return metrics.Encoding{}, err
		}
		if len(groups) != 1 || len(groups[0].Events) != 1 {
			return metrics.Encoding{}, fmt.Errorf("%q is not one event", name)
		}
		return Encoding(groups[0].Events[0].Attr), nil
	}
}

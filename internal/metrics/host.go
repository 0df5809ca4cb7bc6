package metrics

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/events"
	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/perfevent"
)

// The planner's view of a host.Machine: the machine model knows counters, tables and raw
// codes; what they mean for metrics is said here, so that host does not depend on metrics.

// ArchOn is the architecture of the built-in metrics (Arch) for machine m: from its core
// PMU's name, else from the Arm core pmc knows (or the table --cpu browses), else generic.
func ArchOn(m *host.Machine) string {
	if a := Arch(m.CorePMUName()); a != ArchGeneric {
		return a
	}
	switch m.ArmCoreArch() {
	case "armv6":
		return ArchARM1176
	case "armv7":
		return ArchARMv7
	case "armv8":
		return ArchARMv8
	}
	return ArchGeneric
}

// MachineOf is the co-scheduling planner's view of m's counters: how many general ones,
// whether cycles have their own, and which encodings are cycles, instructions and fixed,
// with Canon mapping a generic event to the raw event the kernel programs for it. assumed
// is true when pmc has no facts for the CPU and the counters are a guess.
func MachineOf(m *host.Machine) (pm Machine, assumed bool) {
	c, assumed := m.Counters()
	pm = Machine{Counters: c.General, CycleCounter: c.Cycle}
	pm.Cycles = []Encoding{{Type: perfevent.TypeHardware, Config: perfevent.HWCPUCycles}}
	pm.Instructions = []Encoding{{Type: perfevent.TypeHardware, Config: perfevent.HWInstructions}}
	canon := CanonOn(m)
	for _, f := range c.Fixed {
		if s, ok := events.LookupSymbol(f); ok {
			pm.Fixed = append(pm.Fixed, canon(Encoding{Type: s.Type, Config: s.Config}))
		}
	}
	if code, ok := m.RawCode("cpu-cycles"); ok {
		pm.Cycles = append(pm.Cycles, Encoding{Type: m.Core.Type, Config: code})
	}
	if code, ok := m.RawCode("instructions"); ok {
		pm.Instructions = append(pm.Instructions, Encoding{Type: m.Core.Type, Config: code})
	}
	pm.Canon = canon
	return pm, assumed
}

// CanonOn maps an encoding to the counter m's kernel programs (host.Machine.Canonical).
func CanonOn(m *host.Machine) func(Encoding) Encoding {
	return func(e Encoding) Encoding {
		e.Type, e.Config = m.Canonical(e.Type, e.Config)
		return e
	}
}

// EncodingOf is a resolved event as the planner compares them: its attr's identity and the
// privilege levels it counts.
func EncodingOf(a perfevent.Attr) Encoding {
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
	return Encoding{Type: a.Type, Config: a.Config, Config1: a.Config1, Config2: a.Config2, Mods: mods.String()}
}

// ResolverOn resolves metric operands on m for the planner: each must be one event.
func ResolverOn(m *host.Machine) Resolver {
	return func(name string) (Encoding, error) {
		groups, err := m.Resolve(name, events.Options{})
		if err != nil {
			return Encoding{}, err
		}
		if len(groups) != 1 || len(groups[0].Events) != 1 {
			return Encoding{}, fmt.Errorf("%q is not one event", name)
		}
		return EncodingOf(groups[0].Events[0].Attr), nil
	}
}

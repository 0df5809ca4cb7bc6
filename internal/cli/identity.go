package cli

import (
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
)

// identity is the machine of m as saved results name it.
func identity(m *host.Machine) *result.Machine {
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

// stamp records where, when and by what res was measured; a zero started leaves the date
// out (the fake backend: its output is the same on every run).
func stamp(res *result.Stat, facts *host.Machine, started time.Time, args []string) {
	res.Machine = identity(facts)
	if !started.IsZero() {
		res.Date = started.UTC().Format(time.RFC3339)
	}
	res.PMCVersion = version()
	res.PMCCommand = args
}

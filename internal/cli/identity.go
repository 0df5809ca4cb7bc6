package cli

import (
	"time"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/result"
)

// identity is the machine of m as saved results name it.
func identity(m *host.Machine) *result.Machine { return m.Identity() }

// stamp records where, when and by what res was measured (result.Stat.Stamp).
func stamp(res *result.Stat, facts *host.Machine, started time.Time, args []string) {
	res.Stamp(facts.Identity(), started, version(), args)
}

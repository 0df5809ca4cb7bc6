package listing

import (
	"fmt"
	"io"
	"strings"

	"github.com/pmc-tools/pmc/internal/catalog"
)

// writeCHeader writes the CPU's event table as a C array for include/pmc.h: the names pmc stat
// accepts from the table, each with the raw config the core PMU takes (PMC_EVENT_TABLE).
func writeCHeader(w io.Writer, t *catalog.Table) error {
	ident := "pmc_events"
	guard := "PMC_EVENTS_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(t.Name)) + "_H"
	var b strings.Builder
	fmt.Fprintf(&b, "/* %s: the event names of %s for pmc.h, written by `pmc list --cpu %s --c-header`.\n", ident, t.Title, t.Name)
	b.WriteString(" * Use: #include \"pmc_events.h\", #define PMC_EVENT_TABLE pmc_events, then include pmc.h. */\n")
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n\nstatic const struct pmc_event_name {\n\tconst char *name;\n\tunsigned long long config;\n} %s[] = {\n", guard, guard, ident)
	n := 0
	for _, e := range t.Events() {
		if e.Unit != "" {
			continue // an uncore PMU's event: not the core PMU's raw config
		}
		fmt.Fprintf(&b, "\t{%q, %#x},\n", e.Name, e.Config(t.Arch))
		n++
	}
	if n == 0 {
		return fmt.Errorf("table %s has no core PMU events", t.Name)
	}
	fmt.Fprintf(&b, "};\n\n#endif /* %s */\n", guard)
	_, err := io.WriteString(w, b.String())
	return err
}

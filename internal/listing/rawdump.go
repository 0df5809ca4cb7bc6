package listing

import (
	"fmt"
	"io"
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/metrics"
)

// writeRawDump prints `pmc list --raw-dump [WHAT]` as perf prints `perf list --raw-dump`:
// the names alone, on one line, separated by spaces, for scripts that loop over them (perf's
// own tests do). Only events that can be counted here are named, as perf leaves out what the
// kernel refuses. WHAT is hw, sw, cache, pmu (sysfs PMU events and the CPU table's events that
// can be counted), tracepoint, sdt (pmc has none), metrics or metricgroups (pmc stat -M's
// names for this CPU), or a pattern as pmc list takes it; nothing is every event (not the
// metrics, as perf).
func writeRawDump(w io.Writer, m *host.Machine, what string) error {
	var names []string
	switch strings.ToLower(what) {
	case "metric", "metrics":
		for _, d := range metrics.Builtin(metrics.ArchOn(m)).Defs() {
			names = append(names, d.Name)
		}
	case "metricgroup", "metricgroups":
		names = metrics.Builtin(metrics.ArchOn(m)).Groups()
	case "sdt":
		// pmc reads no SDT markers
	default:
		for _, e := range rawDumpEntries(m, what) {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		_, err := fmt.Fprintln(w)
		return err
	}
	_, err := fmt.Fprintln(w, strings.Join(names, " "))
	return err
}

// rawDumpEntries are the countable events --raw-dump names for what: every kind of pmc list,
// tracepoints included, without a pattern; sysfs events and the CPU table's for "pmu" (perf's
// pmu list has the core PMU's named events).
func rawDumpEntries(m *host.Machine, what string) []Entry {
	var es []Entry
	switch strings.ToLower(what) {
	case "":
		es = append(collect(m, nil, "").Events, collect(m, nil, "tracepoint").Events...)
	case "pmu":
		es = append(collect(m, nil, "pmu").Events, collect(m, nil, "table").Events...)
	default:
		es = collect(m, nil, what).Events
	}
	var out []Entry
	seen := map[string]bool{}
	for _, e := range es {
		if e.Available && e.Kind != "breakpoint" && !seen[e.Name] {
			seen[e.Name] = true
			out = append(out, e)
		}
	}
	return out
}

package catalog

// Resolver looks event names up in a list of tables, first table first. It has the method
// set of events.Tables, so the event parser can resolve catalog names (-e L1D_CACHE_REFILL,
// -e ls_dc_accesses) to a PMU and config.
type Resolver struct {
	tables []*Table
}

// NewResolver resolves names against tables in order; nil tables are skipped.
func NewResolver(tables ...*Table) Resolver {
	var r Resolver
	for _, t := range tables {
		if t != nil {
			r.tables = append(r.tables, t)
		}
	}
	return r
}

// Lookup returns the PMU ("" for the core PMU) and perf_event_attr.config of a table event,
// ignoring case.
func (r Resolver) Lookup(name string) (pmu string, config uint64, ok bool) {
	for _, t := range r.tables {
		if e, found := t.Lookup(name); found {
			return e.Unit, e.Config(t.Arch), true
		}
	}
	return "", 0, false
}

// Names lists every event name of every table, for suggestions.
func (r Resolver) Names() []string {
	var out []string
	for _, t := range r.tables {
		for _, e := range t.events {
			out = append(out, e.Name)
		}
	}
	return out
}

package statrun

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
	"github.com/pmc-tools/pmc/internal/metrics"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
	"github.com/pmc-tools/pmc/internal/statistics"
)

// MetricPlan is the metric set and the metric names a `pmc stat` run computes.
type MetricPlan struct {
	Set      *metrics.Set
	Names    []string // asked for (-M, --metric-group, the report's default set): always shown
	asked    []string // the names -M and --metric-group chose (the text names these)
	defaults []string // perf's default "#" column: shown only when their operands were counted
	Opt      metrics.Options
	Warnings []string      // one line each, printed before counting
	Notes    []string      // one line each, printed after the counts (how the planner counted)
	planned  string        // the event list the planner built ("" when -e alone chose the events)
	userN    int           // events the user named (-e), first in the list
	plannedN int           // events of planned, after the user's
	facts    *host.Machine // whose CPU and counters the metrics are planned and judged for
	on       *host.Machine // where the events resolve
}

// NewMetricPlan builds the metric set (built-ins for the machine's architecture plus
// --metrics-file) and selects the metrics of -M and --metric-group.
func NewMetricPlan(m *MetricFlags, facts, on *host.Machine, read Reader) (*MetricPlan, error) {
	set := metrics.Builtin(metrics.ArchOn(facts))
	if m.File != "" {
		data, err := read(m.File, LimitMetrics, "--metrics-file")
		if err != nil {
			return nil, err
		}
		defs, err := metrics.LoadFile(data, strings.TrimPrefix(filepath.Ext(m.File), "."))
		if err != nil {
			return nil, fmt.Errorf("--metrics-file %s: %w", m.File, err)
		}
		if set, err = set.Merge(defs...); err != nil {
			return nil, fmt.Errorf("--metrics-file %s: %w", m.File, err)
		}
	}
	p := &MetricPlan{Set: set, facts: facts, on: on, Opt: metrics.Options{IssueWidth: facts.IssueWidth(),
		Match: &metrics.Matcher{Resolve: metrics.ResolverOn(on), Canon: metrics.CanonOn(facts)}}}
	names, warnings, err := set.SelectHere(append(append([]string{}, m.Metrics...), m.Groups...)...)
	if err != nil {
		return nil, fmt.Errorf("-M/--metric-group: %w", err)
	}
	p.Names, p.asked, p.Warnings = names, names, warnings
	if d, err := set.Select(metrics.GroupDefault); err == nil {
		for _, n := range d {
			if !slices.Contains(names, n) {
				p.defaults = append(p.defaults, n)
			}
		}
	}
	return p, nil
}

// reportDefaults chooses the metrics of a report when neither -e nor -M says what to count,
// like rpistat's nine ARM1176 events: the rpistat group on the ARM1176, the software group on
// a machine without a PMU, and the default, cache and branch groups elsewhere.
func (p *MetricPlan) reportDefaults() error {
	groups := []string{metrics.GroupDefault, metrics.GroupIPC, metrics.GroupCache, metrics.GroupBranch}
	if hasTLBEvents(p.facts) {
		groups = append(groups, metrics.GroupTLB)
	}
	switch {
	case p.facts.Core == nil:
		groups = []string{metrics.GroupSoftware}
	case metrics.ArchOn(p.facts) == metrics.ArchARM1176:
		groups = []string{metrics.GroupRpistat}
	}
	names, err := p.Set.Select(groups...)
	if err != nil {
		return err
	}
	p.Names = names
	var rest []string
	for _, n := range p.defaults {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	p.defaults = rest
	return nil
}

// hasTLBEvents says whether the CPU counts TLB misses: its event table maps perf's generic
// dTLB event, or pmc has no table and perf's generic names are all it has.
func hasTLBEvents(m *host.Machine) bool {
	if m.Table == nil {
		return true
	}
	_, ok := m.Table.MapGeneric("dTLB-load-misses")
	return ok
}

// reportMetrics are the report's metrics: the run's, with CPI computed too when its operands
// were counted (rpistat's report starts with CPI and IPC; perf's text shows IPC alone).
func (p *MetricPlan) reportMetrics(res *result.Stat) []result.Metric {
	out := res.Metrics
	for _, m := range out {
		if m.Name == "cpi" {
			return out
		}
	}
	skip := p.Opt
	skip.SkipMissing = true
	return append(valid(p.Set.Compute(res, []string{"cpi"}, skip)), out...)
}

// events returns the event list to count. Without -e it is the plan of the requested
// metrics (nil when none was requested: the caller uses perf's default list). With -e, the
// groups of the metrics whose operands -e lacks are added after the user's events.
func (p *MetricPlan) events(userSpec string, user []stat.Event) (string, error) {
	if len(p.Names) == 0 {
		return userSpec, nil
	}
	want := p.Names
	if userSpec != "" {
		want = nil
		for _, n := range p.Names {
			for _, ev := range p.Set.Events(n) {
				if !p.haveEvent(user, ev) && ev != "duration_time" && ev != "user_time" && ev != "system_time" {
					want = append(want, n)
					break
				}
			}
		}
		if len(want) == 0 {
			return userSpec, nil
		}
	}
	machine, _ := metrics.MachineOf(p.facts)
	plan, err := metrics.NewPlan(p.Set, want, machine, metrics.ResolverOn(p.on))
	if err != nil {
		return "", fmt.Errorf("-M: %w", err)
	}
	var parts []string // the planner's part of the event list
	for _, ev := range plan.Pinned {
		if !p.haveEvent(user, ev) {
			parts = append(parts, ev)
		}
	}
	for _, g := range plan.Groups {
		parts = append(parts, g.String())
	}
	for _, ev := range plan.Software {
		if !p.haveEvent(user, ev) {
			parts = append(parts, ev)
		}
	}
	// A metric whose operands never fit the counters at once is still computed, from events
	// counted on their own, and flagged as not measured together.
	for _, u := range plan.Unschedulable {
		p.Warnings = append(p.Warnings, fmt.Sprintf("metric %s: its events are counted in separate groups and its value is flagged", u))
		for _, ev := range p.Set.Events(u.Metric) {
			if !metrics.NeedsCounter(ev) || p.haveEvent(user, ev) || slices.Contains(parts, ev) || inPlan(plan, ev) {
				continue
			}
			parts = append(parts, ev)
		}
	}
	p.planned = strings.Join(parts, ",")
	if userSpec == "" {
		return p.planned, nil
	}
	if p.planned == "" {
		return userSpec, nil
	}
	return userSpec + "," + p.planned, nil
}

// Mark flags the planner's events among evs (result.Count.Planned) and names its pinned
// cycle counter as a user writes it ("cycles", not "cycles:D"), saying how it was counted.
func (p *MetricPlan) Mark(evs []stat.Event) (notes []string) {
	for i := p.userN; i < p.userN+p.plannedN && i < len(evs); i++ {
		evs[i].Planned = true
		if name, ok := metrics.UnpinnedSpelling(evs[i].Name); ok && evs[i].Attr.Pinned {
			notes = append(notes, fmt.Sprintf("%s: counted pinned on the cycle counter for the whole run (perf's %s), never multiplexed; every metric takes its cycles from it",
				name, evs[i].Name))
			evs[i].Name = name
		}
	}
	return notes
}

// CheckPinned refuses, before anything runs, an event list whose pinned groups cannot all be
// on the CPU's counters at once (when pmc knows how many it has).
func (p *MetricPlan) CheckPinned(evs []stat.Event) error {
	m, assumed := metrics.MachineOf(p.facts)
	if assumed {
		return nil
	}
	pinned := map[int]bool{} // perf sets pinned on a group's leader: the group goes with it
	for _, e := range evs {
		pinned[e.Group] = pinned[e.Group] || e.Attr.Pinned
	}
	list := make([]metrics.ListEvent, len(evs))
	for i, e := range evs {
		list[i] = metrics.ListEvent{Name: e.Name, Group: e.Group, Enc: metrics.EncodingOf(e.Attr), Pinned: pinned[e.Group]}
	}
	return m.CheckPinned(list)
}

func inPlan(plan metrics.Plan, ev string) bool {
	for _, g := range plan.Groups {
		if slices.Contains(g.Events, ev) {
			return true
		}
	}
	return false
}

// haveEvent reports whether the user's events count the metric operand ev: the same event,
// whatever its spelling (an alias, a catalog or raw name) or its privilege filter.
func (p *MetricPlan) haveEvent(user []stat.Event, ev string) bool {
	k, ok := p.Opt.Match.OperandKey(ev)
	for _, u := range user {
		if u.Name == ev || ok && p.Opt.Match.Key(metrics.EncodingOf(u.Attr)) == k {
			return true
		}
	}
	return false
}

// valid keeps the metrics that have a value: like perf, a default metric whose operands were
// not counted is left out rather than shown empty.
func valid(ms []result.Metric) []result.Metric {
	var out []result.Metric
	for _, m := range ms {
		if m.Valid {
			out = append(out, m)
		}
	}
	return out
}

// result computes the plan's metrics over a whole Result: the requested ones always (an
// undefined one says why), the default ones when they have a value.
func (p *MetricPlan) Result(res *result.Stat) []result.Metric {
	if p == nil || p.Set == nil {
		return nil
	}
	out := p.markAsked(p.Set.Compute(res, p.Names, p.Opt))
	skip := p.Opt
	skip.SkipMissing = true
	out = append(out, valid(p.Set.Compute(res, p.defaults, skip))...)
	return append(out, metrics.Rates(summaryCounts(res), res.ElapsedSec, out)...)
}

// spread computes each metric on every kept run alone and records how it varied over the
// runs (-r N with the runs kept). The metric's value stays that of the mean counts.
func (p *MetricPlan) spread(res *result.Stat) {
	if p == nil || p.Set == nil || len(res.Runs) < 2 {
		return
	}
	type key struct {
		name string
		cpu  int
	}
	per := map[key][]float64{}
	opt := p.Opt
	opt.SkipMissing = true
	names := append(append([]string(nil), p.Names...), p.defaults...)
	for _, run := range res.Runs {
		for _, m := range p.Set.ComputeCounts(run.Counts, run.ElapsedSec, names, opt) {
			if m.Valid {
				per[key{m.Name, m.CPU}] = append(per[key{m.Name, m.CPU}], m.Value)
			}
		}
	}
	for i := range res.Metrics {
		m := &res.Metrics[i]
		if vs := per[key{m.Name, m.CPU}]; len(vs) > 0 {
			m.Spread = &result.Spread{Runs: len(vs), Mean: statistics.Mean(vs), Stddev: statistics.Stddev(vs),
				Min: slices.Min(vs), Max: slices.Max(vs)}
		}
	}
}

// markAsked marks the metrics -M and --metric-group named (not the report's defaults): the
// text names them.
func (p *MetricPlan) markAsked(ms []result.Metric) []result.Metric {
	for i := range ms {
		ms[i].Asked = slices.Contains(p.asked, ms[i].Name)
	}
	return ms
}

// summaryCounts is the summary as counts (their means), what metrics.Rates reads.
func summaryCounts(res *result.Stat) []result.Count {
	out := make([]result.Count, len(res.Summary))
	for i, s := range res.Summary {
		out[i] = result.Count{Event: s.Event, CPU: s.CPU, Status: s.Status, Scaled: s.Mean, Encoding: s.Encoding, Bound: s.Bound}
	}
	return out
}

// interval computes the plan's metrics over one interval's deltas lasting sec seconds.
func (p *MetricPlan) Interval(counts []result.Count, sec float64) []result.Metric {
	if p == nil || p.Set == nil {
		return nil
	}
	out := p.markAsked(p.Set.ComputeCounts(counts, sec, p.Names, p.Opt))
	skip := p.Opt
	skip.SkipMissing = true
	out = append(out, valid(p.Set.ComputeCounts(counts, sec, p.defaults, skip))...)
	return append(out, metrics.Rates(counts, sec, out)...)
}

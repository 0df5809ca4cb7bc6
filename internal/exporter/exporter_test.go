package exporter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/stat"
)

// scripted is a Backend whose sessions read what the test sets: per cgroup ("" for the
// system-wide session), event and CPU, a value; the refused event errs.
type scripted struct {
	values  map[string]map[[2]int]perfevent.Value
	refused int // index of an event the kernel refuses (-1: none)
	open    map[string]int
}

type scriptedSession struct {
	b   *scripted
	req *stat.Request
	cg  string
}

func (b *scripted) Name() string { return "scripted" }
func (b *scripted) Begin(_ context.Context, req *stat.Request, _ int) (stat.Session, error) {
	cg := ""
	if req.Cgroup != "" {
		cg = req.Cgroup[strings.Index(req.Cgroup, "/cg/")+4:]
	}
	b.open[cg]++
	return &scriptedSession{b: b, req: req, cg: cg}, nil
}
func (s *scriptedSession) Start() error { return nil }
func (s *scriptedSession) Read() ([]stat.Reading, error) {
	var out []stat.Reading
	for _, cpu := range s.req.CPUs {
		for e := range s.req.Events {
			r := stat.Reading{Event: e, CPU: cpu, Value: s.b.values[s.cg][[2]int{e, cpu}]}
			if e == s.b.refused {
				r.Err, r.Value = errors.New("refused"), perfevent.Value{}
			}
			out = append(out, r)
		}
	}
	return out, nil
}
func (s *scriptedSession) Ticks() <-chan time.Duration    { return nil }
func (s *scriptedSession) Done() <-chan struct{}          { return nil }
func (s *scriptedSession) Outcome() (stat.Outcome, error) { return stat.Outcome{}, nil }
func (s *scriptedSession) Notes() []string                { return nil }
func (s *scriptedSession) Close() error                   { s.b.open[s.cg]--; return nil }

func v(raw, enabled, running uint64) perfevent.Value {
	return perfevent.Value{Raw: raw, Enabled: enabled, Running: running}
}

// TestExporter: counts are scaled like pmc stat's and summed over CPUs; a refused event has
// pmc_event_supported 0 and no count; CPU hotplug reopens the sessions with the totals carried
// over (monotonic); cgroups are counted as they appear, up to the limit (the rest in
// pmc_cgroups_dropped), and their sessions closed when they go.
func TestExporter(t *testing.T) {
	b := &scripted{refused: 2, open: map[string]int{}, values: map[string]map[[2]int]perfevent.Value{
		"":  {{0, 0}: v(1000, 100, 100), {0, 1}: v(500, 100, 50), {1, 0}: v(7, 100, 100), {1, 1}: v(0, 100, 0)},
		"a": {{0, 0}: v(10, 0, 0)},
	}}
	cpus := []int{0, 1}
	tree := fstest.MapFS{"a/cgroup.procs": {}, "b/cgroup.procs": {}, "c/cgroup.procs": {}}
	evs := []stat.Event{{Name: "cycles"}, {Name: "page-faults"}, {Name: "bogus"}}
	e, err := New(Config{Events: evs, Backend: b, Online: func() ([]int, error) { return cpus, nil },
		Cgroups: []string{"a", "b"}, CgroupFS: tree, CgroupMount: "/cg", CgroupLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	want := func(extra string) string {
		return `# HELP pmc_cgroups Cgroups counted now.
# TYPE pmc_cgroups gauge
pmc_cgroups 1
# HELP pmc_cgroups_dropped Cgroups matching the patterns that are not counted (over --cgroup-limit, or refused).
# TYPE pmc_cgroups_dropped gauge
pmc_cgroups_dropped 1
# HELP pmc_event_supported 1 when the kernel accepted the event, 0 when it refused it (then it has no count).
# TYPE pmc_event_supported gauge
pmc_event_supported{cgroup="",event="bogus"} 0
pmc_event_supported{cgroup="",event="cycles"} 1
pmc_event_supported{cgroup="",event="page-faults"} 1
pmc_event_supported{cgroup="a",event="bogus"} 0
pmc_event_supported{cgroup="a",event="cycles"} 1
pmc_event_supported{cgroup="a",event="page-faults"} 1
# HELP pmc_events_total Events counted, scaled for multiplexing (count * enabled / running) like pmc stat; clocks in nanoseconds.
# TYPE pmc_events_total counter
` + extra
	}
	names := []string{"pmc_events_total", "pmc_cgroups", "pmc_cgroups_dropped", "pmc_event_supported"}
	// cycles: 1000 + 500 * 100/50 = 2000; page-faults on CPU 1 never ran: the sum is CPU 0's.
	// Cgroup a: enabled 0 is a true 0 (its tasks never ran), cgroup b is over the limit.
	exp := `pmc_events_total{cgroup="",event="cycles"} 2000
pmc_events_total{cgroup="",event="page-faults"} 7
pmc_events_total{cgroup="a",event="cycles"} 10
pmc_events_total{cgroup="a",event="page-faults"} 0
`
	if err := compareExposition(e, want(exp), names...); err != nil {
		t.Error(err)
	}
	// CPU 1 goes offline: a new session on CPU 0 starts from 0, the totals carry on.
	cpus = []int{0}
	if err := e.Refresh(); err != nil {
		t.Fatal(err)
	}
	b.values[""] = map[[2]int]perfevent.Value{{0, 0}: v(30, 10, 10), {1, 0}: v(1, 10, 10)}
	b.values["a"] = map[[2]int]perfevent.Value{{0, 0}: v(5, 10, 10)}
	exp = `pmc_events_total{cgroup="",event="cycles"} 2030
pmc_events_total{cgroup="",event="page-faults"} 8
pmc_events_total{cgroup="a",event="cycles"} 15
pmc_events_total{cgroup="a",event="page-faults"} 0
`
	if err := compareExposition(e, want(exp), names...); err != nil {
		t.Error(err)
	}
	reopens := `# HELP pmc_hotplug_reopens_total Times the counters were reopened because the online CPUs changed.
# TYPE pmc_hotplug_reopens_total counter
pmc_hotplug_reopens_total 1
`
	if err := compareExposition(e, reopens, "pmc_hotplug_reopens_total"); err != nil {
		t.Error(err)
	}
	// Cgroup a goes: its session is closed, b takes its place.
	delete(tree, "a/cgroup.procs")
	if err := e.Refresh(); err != nil {
		t.Fatal(err)
	}
	if got := e.Cgroups(); len(got) != 1 || got[0] != "b" || b.open["a"] != 0 || b.open["b"] != 1 || b.open[""] != 1 {
		t.Errorf("cgroups %q, open sessions %v", got, b.open)
	}
}

// compareExposition compares the text exposition of e's families named names with want.
func compareExposition(e *Exporter, want string, names ...string) error {
	var fams []Family
	for _, f := range e.Families() {
		if slices.Contains(names, f.Name) {
			fams = append(fams, f)
		}
	}
	var b strings.Builder
	if err := WriteText(&b, fams); err != nil {
		return err
	}
	if b.String() != want {
		return fmt.Errorf("exposition:\n%s\nwant:\n%s", b.String(), want)
	}
	return nil
}

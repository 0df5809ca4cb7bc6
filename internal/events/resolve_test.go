package events

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	pe "github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/pmu"
)

func resolveString(t *testing.T, s, machine string, opts Options) ([]Group, error) {
	t.Helper()
	sys, dir := snapshot(t, machine)
	specs, err := Parse(s)
	if err != nil {
		return nil, err
	}
	return Resolve(specs, sys, os.DirFS(dir), opts)
}

func TestResolveErrors(t *testing.T) {
	cases := []struct {
		in, machine string
		kind        error
		msg         string
	}{
		{"instrucions", "x86_64-kvm-epyc", ErrUnknownEvent, `unknown event "instrucions" (did you mean: instructions?)`},
		{"cycles,task-clok", "x86_64-kvm-epyc", ErrUnknownEvent, `unknown event "task-clok" (event at column 8) (did you mean: task-clock?)`},
		{"L1-dcache-lod-misses", "x86_64-kvm-epyc", ErrUnknownEvent, `(did you mean: L1-dcache-load-misses?)`},
		{"ts", "x86_64-kvm-epyc", ErrUnknownEvent, `unknown event "ts"`},
		{"tcs", "x86_64-kvm-epyc", ErrUnknownEvent, `did you mean: cs, tsc?`},
		{"inst_retired.anny", "x86_64-intel-skylake", ErrUnknownEvent, `did you mean: inst_retired.any?`},
		{"inst_retird", "arm64-cortex-a57-qemu", ErrUnknownEvent, `did you mean: inst_retired?`},
		{"xyzzy", "x86_64-kvm-epyc", ErrUnknownEvent, `unknown event "xyzzy"`},
		{"foo/event=1/", "x86_64-kvm-epyc", ErrUnknownPMU, `pmu "foo" not found (have: breakpoint, msr, software, tracepoint, uprobe)`},
		{"cpu/event=0x3c/", "x86_64-kvm-epyc", ErrUnknownPMU, `pmu "cpu" not found`},
		{"mrs/tsc/", "x86_64-kvm-epyc", ErrUnknownPMU, `(did you mean: msr?)`},
		{"cpu/umsk=1/", "x86_64-intel-skylake", ErrUnknownField, `format field "umsk" not in cpu/format (have: any, cmask, edge, event, frontend, in_tx, in_tx_cp, inv, ldlat, offcore_rsp, pc, umask, config, config1, config2, config3) (did you mean: umask?)`},
		{"cpu/instret/", "x86_64-intel-skylake", ErrUnknownField, `"instret" is neither a sysfs event nor a format field of pmu cpu`},
		{"armv8_pmuv3_0/inst_retird/", "arm64-cortex-a57-qemu", ErrUnknownField, `(did you mean: inst_retired?)`},
		{"software/event=1/", "x86_64-kvm-epyc", ErrUnknownField, `pmu software has no format fields: give its event by name (pmc list software) or as config=N`},
		{"cpu/event=0x100/", "x86_64-intel-skylake", ErrValue, `event=0x100 does not fit in cpu/format/event (config:0-7, max 0xff)`},
		{"cpu/inv=2/", "x86_64-intel-skylake", ErrValue, `inv=0x2 does not fit`},
		{"armv8_pmuv3_0/event=0x10000/", "arm64-cortex-a57-qemu", ErrValue, `max 0xffff`},
		{"cpu/event=zz/", "x86_64-intel-skylake", ErrValue, `bad value "zz" for term "event"`},
		{"cpu/event=0x3c,name/", "x86_64-intel-skylake", ErrValue, `needs a value`},
		{"r10000000000000000", "x86_64-kvm-epyc", ErrValue, `does not fit in 64 bits`},
		{"L1-icache-stores", "x86_64-kvm-epyc", ErrUnsupported, `L1-icache does not support stores`},
		{"iTLB-prefetch-misses", "x86_64-kvm-epyc", ErrUnsupported, `iTLB does not support prefetches`},
		{"branch-store-misses", "x86_64-kvm-epyc", ErrUnsupported, `branch does not support stores`},
		{"sched:sched_swich", "x86_64-kvm-epyc", ErrUnknownEvent, `tracepoint "sched:sched_swich" not found in tracefs (did you mean: sched:sched_switch?)`},
		{"shed:sched_switch", "x86_64-kvm-epyc", ErrUnknownEvent, `(did you mean: sched:sched_switch?)`},
		{"cycles:x", "x86_64-kvm-epyc", ErrSyntax, `bad modifier "x" after event "cycles"`},
		{"L1-dcache-loads:q", "x86_64-kvm-epyc", ErrSyntax, `bad modifier "q"`},
		{"{cycles:ppp}:p", "x86_64-kvm-epyc", ErrValue, `precise level 4 (max 3)`},
		{"duration_time", "x86_64-kvm-epyc", ErrUnsupported, `perf tool event`},
		{"mem:0x1000", "x86_64-kvm-epyc", ErrUnsupported, `does not support mem:ADDR`},
		{"sched:nope*", "x86_64-kvm-epyc", ErrUnknownEvent, `no tracepoint matches "sched:nope*"`},
		{"sched:sched_[", "x86_64-kvm-epyc", ErrSyntax, `unexpected character`},
	}
	for _, c := range cases {
		_, err := resolveString(t, c.in, c.machine, Options{Tables: fakeTables})
		if err == nil {
			t.Errorf("%s: no error", c.in)
			continue
		}
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %q (%T), want %v containing %q", c.in, err, err, c.kind, c.msg)
		}
	}
}

func TestResolveNilInputs(t *testing.T) {
	specs, err := Parse("cycles,task-clock:u,L1-dcache-load-misses,r1a")
	if err != nil {
		t.Fatal(err)
	}
	groups, err := Resolve(specs, nil, nil, Options{})
	if err != nil || len(groups) != 4 || groups[0].Events[0].PMU != "cpu" {
		t.Fatalf("Resolve with nil sys: %v %+v", err, groups)
	}
	a := groups[1].Events[0].Attr
	if a.Inherit != true || a.EnableOnExec || !a.Disabled || !a.ExcludeKernel || a.Config != pe.SWTaskClock {
		t.Errorf("task-clock:u with zero Options = %+v", a)
	}
	specs, _ = Parse("sched:sched_switch")
	if _, err := Resolve(specs, nil, nil, Options{}); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("tracepoint without tracefs: %v", err)
	}
	specs, _ = Parse("inst_retired.any")
	if _, err := Resolve(specs, nil, nil, Options{}); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("table name without tables: %v", err)
	}
}

// TestWeakGroup: perf's {...}:W parses, marks the group weak and changes no attribute.
func TestWeakGroup(t *testing.T) {
	weak, err := Parse("{cycles,instructions}:W,{cycles,instructions}:uW,branches")
	if err != nil {
		t.Fatal(err)
	}
	groups, err := Resolve(weak, nil, nil, Options{})
	if err != nil || len(groups) != 3 || !groups[0].Weak || !groups[1].Weak || groups[2].Weak {
		t.Fatalf("%v %+v", err, groups)
	}
	plain, _ := Parse("{cycles,instructions}")
	strong, _ := Resolve(plain, nil, nil, Options{})
	if groups[0].Events[1].Attr != strong[0].Events[1].Attr || !groups[1].Events[1].Attr.ExcludeKernel {
		t.Errorf(":W changed the attributes: %+v", groups[0].Events[1].Attr)
	}
}

func TestUnitScaleAndNames(t *testing.T) {
	groups, err := resolveString(t, "task-clock,cpu-clock:u,power/energy-pkg/,cpu/topdown-total-slots/,cpu/event=0x3c,name=c0/,CYCLES-CT",
		"x86_64-intel-skylake", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name, pmu, unit, resolved string
		scale                     float64
	}{
		{"task-clock", "software", "msec", "task-clock", 1e-6},
		{"cpu-clock:u", "software", "msec", "cpu-clock", 1e-6},
		{"power/energy-pkg/", "power", "Joules", "power/config=0x2/", 2.3283064365386962890625e-10},
		{"cpu/topdown-total-slots/", "cpu", "", "cpu/config=0x3c/", 4},
		{"c0", "cpu", "", "cpu/config=0x3c/", 1},
		{"CYCLES-CT", "cpu", "", "cpu/config=0x30000003c/", 1},
	}
	for i, w := range want {
		e := groups[i].Events[0]
		if e.Name != w.name || e.PMU != w.pmu || e.Unit != w.unit || e.Scale != w.scale || e.Resolved != w.resolved {
			t.Errorf("event %d = %q pmu %s unit %q scale %g resolved %s; want %+v", i, e.Name, e.PMU, e.Unit, e.Scale, e.Resolved, w)
		}
	}
}

// A bare sysfs name on several PMUs opens on each, as perf does (uncore boxes, hybrid cores).
func TestBareAliasOnSeveralPMUs(t *testing.T) {
	fsys := fstest.MapFS{}
	for i, n := range []string{"uncore_imc_0", "uncore_imc_1"} {
		d := "bus/event_source/devices/" + n + "/"
		fsys[d+"type"] = &fstest.MapFile{Data: []byte{byte('0' + 6 + i), '\n'}}
		fsys[d+"format/event"] = &fstest.MapFile{Data: []byte("config:0-7\n")}
		fsys[d+"format/umask"] = &fstest.MapFile{Data: []byte("config:8-15\n")}
		fsys[d+"events/cas_count_read"] = &fstest.MapFile{Data: []byte("event=0x04,umask=0x03\n")}
		fsys[d+"events/cas_count_read.unit"] = &fstest.MapFile{Data: []byte("MiB\n")}
		fsys[d+"events/cas_count_read.scale"] = &fstest.MapFile{Data: []byte("6.103515625e-5\n")}
	}
	sys, err := pmu.Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in     string
		groups int
	}{{"cas_count_read", 2}, {"{cas_count_read}", 1}} {
		specs, _ := Parse(c.in)
		groups, err := Resolve(specs, sys, nil, Options{})
		if err != nil || len(groups) != c.groups {
			t.Fatalf("%s: %v, %d groups", c.in, err, len(groups))
		}
		var evs []Event
		for _, g := range groups {
			evs = append(evs, g.Events...)
		}
		if len(evs) != 2 || evs[0].Attr.Type != 6 || evs[1].Attr.Type != 7 || evs[0].Attr.Config != 0x304 ||
			evs[1].PMU != "uncore_imc_1" || evs[0].Unit != "MiB" || evs[0].Scale != 6.103515625e-5 {
			t.Errorf("%s = %+v", c.in, evs)
		}
		if c.groups == 1 && (evs[0].Attr.ReadFormat&pe.FormatGroup == 0 || evs[1].Attr.Disabled) {
			t.Errorf("braced expansion is not one group: %+v", evs)
		}
	}
}

func TestDefaultEvents(t *testing.T) {
	base := "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses"
	if DefaultEvents() != base {
		t.Errorf("DefaultEvents = %q", DefaultEvents())
	}
	sys, _ := snapshot(t, "x86_64-intel-skylake")
	if got := DefaultEventsFor(sys, false); got != base {
		t.Errorf("skylake snapshot (no stalled-cycles events) = %q", got)
	}
	sys.PMUs["cpu"].Events["stalled-cycles-frontend"] = pmu.Alias{Name: "stalled-cycles-frontend", Terms: "event=0x9c", Scale: 1}
	want := "task-clock,context-switches,cpu-migrations,page-faults,cycles,stalled-cycles-frontend,instructions,branches,branch-misses"
	if got := DefaultEventsFor(sys, false); got != want {
		t.Errorf("with stalled-cycles-frontend = %q", got)
	}
}

func TestCacheNamesAllParse(t *testing.T) {
	names := CacheNames()
	if len(names) != 2*(3+2+3+3+1+1+3) {
		t.Fatalf("%d cache names", len(names))
	}
	for _, n := range names {
		c, ok, bad := parseCache(n)
		if !ok || bad || c.name() != n {
			t.Errorf("%s -> %+v ok=%v bad=%v name %s", n, c, ok, bad, c.name())
		}
	}
	for _, n := range []string{"L1-dcache-", "L1-dcachex", "L1-dcache-loads-misses-x", "LLC-foo", "L1", "branches-loads", "dTLB--loads"} {
		if _, ok, _ := parseCache(n); ok {
			t.Errorf("%q parsed as a cache event", n)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"abc", "abc", 0}, {"tcs", "tsc", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"instrucions", "instructions", 1}, {"ab", "ba", 1}} {
		if got := distance(c.a, c.b, 10); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	if got := distance("abcdef", "uvwxyz", 2); got != 3 {
		t.Errorf("bounded distance = %d, want limit+1", got)
	}
}

// deniedFS refuses every file, as tracefs mounted with mode 700 does to an unprivileged user.
type deniedFS struct{}

func (deniedFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}

// TestTracepointCauses: an unreadable tracefs is a permission problem with perf's remedy
// (it said "not found in tracefs"), an empty one is not mounted.
func TestTracepointCauses(t *testing.T) {
	specs, _ := Parse("sched:sched_switch")
	_, err := Resolve(specs, &pmu.System{PMUs: map[string]*pmu.PMU{}}, deniedFS{}, Options{})
	if !errors.Is(err, ErrPermission) || !strings.Contains(err.Error(), "mount -o remount,mode=755 /sys/kernel/tracing") {
		t.Errorf("unreadable tracefs: %v", err)
	}
	_, err = Resolve(specs, &pmu.System{PMUs: map[string]*pmu.PMU{}}, fstest.MapFS{}, Options{})
	if !strings.Contains(err.Error(), "tracefs is not mounted") {
		t.Errorf("no tracefs: %v", err)
	}
}

// TestDefaultSystemWide: perf counts cpu-clock instead of task-clock system-wide.
func TestDefaultSystemWide(t *testing.T) {
	if got := DefaultEventsFor(nil, true); !strings.HasPrefix(got, "cpu-clock,context-switches,") {
		t.Errorf("system-wide default %q", got)
	}
}

// TestPMUNameWithoutInstance (issue 15 item 14): armv8_pmuv3/.../ names the one PMU
// armv8_pmuv3_0, as perf allows, and a table event sysfs does not list resolves on the core
// PMU from the table.
func TestPMUNameWithoutInstance(t *testing.T) {
	for spec, want := range map[string]uint64{
		"armv8_pmuv3/inst_retired/":         0x08, // sysfs event of armv8_pmuv3_0
		"armv8_pmuv3/event=0x11/":           0x11,
		"armv8_pmuv3_0/l1d_cache_lmiss_rd/": 0x39, // from the table, not in sysfs
	} {
		gs, err := resolveString(t, spec, "arm64-cortex-a57-qemu", Options{Tables: fakeTables})
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if a := gs[0].Events[0].Attr; a.Config != want || gs[0].Events[0].PMU != "armv8_pmuv3_0" {
			t.Errorf("%s: config %#x on %s, want %#x on armv8_pmuv3_0", spec, a.Config, gs[0].Events[0].PMU, want)
		}
	}
}

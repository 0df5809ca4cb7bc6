package pmu

import (
	"errors"
	"os"
	"testing"
	"testing/fstest"
)

func TestDiscoverMapFS(t *testing.T) {
	fsys := fstest.MapFS{
		"bus/event_source/devices/cpu/type":                      {Data: []byte("4\n")},
		"bus/event_source/devices/cpu/format/event":              {Data: []byte("config:0-7\n")},
		"bus/event_source/devices/cpu/format/umask":              {Data: []byte("config:8-15\n")},
		"bus/event_source/devices/cpu/events/cpu-cycles":         {Data: []byte("event=0x3c\n")},
		"bus/event_source/devices/cpu/caps/max_precise":          {Data: []byte("3\n")},
		"bus/event_source/devices/power/type":                    {Data: []byte("9")},
		"bus/event_source/devices/power/cpumask":                 {Data: []byte("0\n")},
		"bus/event_source/devices/power/events/energy-pkg":       {Data: []byte("event=0x02\n")},
		"bus/event_source/devices/power/events/energy-pkg.scale": {Data: []byte("2.3283064365386962890625e-10\n")},
		"bus/event_source/devices/power/events/energy-pkg.unit":  {Data: []byte("Joules\n")},
		"devices/system/cpu/online":                              {Data: []byte("0-3,6\n")},
	}
	sys, err := Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.Names(); len(got) != 2 || got[0] != "cpu" || got[1] != "power" {
		t.Fatalf("Names = %v", got)
	}
	cpu := sys.PMUs["cpu"]
	if cpu.Type != 4 || cpu.Formats["umask"].Mask() != 0xff00 || cpu.Events["cpu-cycles"].Terms != "event=0x3c" ||
		cpu.Events["cpu-cycles"].Scale != 1 || cpu.Caps["max_precise"] != "3" || cpu.CPUs != nil {
		t.Errorf("cpu = %+v", cpu)
	}
	pw := sys.PMUs["power"]
	e := pw.Events["energy-pkg"]
	if e.Unit != "Joules" || e.Scale != 2.3283064365386962890625e-10 || len(pw.Events) != 1 {
		t.Errorf("energy-pkg = %+v (events %v)", e, pw.EventNames())
	}
	if !equalInts(pw.CPUs, []int{0}) || !equalInts(sys.Online, []int{0, 1, 2, 3, 6}) {
		t.Errorf("cpus %v online %v", pw.CPUs, sys.Online)
	}
	if sys.Core() != cpu || sys.ByType(9) != pw || sys.ByType(1) != nil {
		t.Errorf("Core/ByType wrong")
	}
}

func TestDiscoverErrors(t *testing.T) {
	cases := map[string]fstest.MapFS{
		"no bus":      {"devices/system/cpu/online": {Data: []byte("0")}},
		"no type":     {"bus/event_source/devices/x/format/event": {Data: []byte("config:0-7")}},
		"bad type":    {"bus/event_source/devices/x/type": {Data: []byte("four")}},
		"bad format":  {"bus/event_source/devices/x/type": {Data: []byte("4")}, "bus/event_source/devices/x/format/event": {Data: []byte("config:9-1")}},
		"bad scale":   {"bus/event_source/devices/x/type": {Data: []byte("4")}, "bus/event_source/devices/x/events/e": {Data: []byte("event=1")}, "bus/event_source/devices/x/events/e.scale": {Data: []byte("x")}},
		"bad cpumask": {"bus/event_source/devices/x/type": {Data: []byte("4")}, "bus/event_source/devices/x/cpumask": {Data: []byte("1-0")}},
		"bad online":  {"bus/event_source/devices/x/type": {Data: []byte("4")}, "devices/system/cpu/online": {Data: []byte("z")}},
	}
	for name, fsys := range cases {
		if _, err := Discover(fsys); err == nil {
			t.Errorf("%s: Discover succeeded", name)
		}
	}
	if _, err := Discover(fstest.MapFS{}); !errors.Is(err, ErrNoPMUs) {
		t.Errorf("empty fs: %v", err)
	}
}

func TestDiscoverSnapshots(t *testing.T) {
	type want struct {
		pmus   []string
		core   string
		online []int
		check  func(t *testing.T, s *System)
	}
	cases := map[string]want{
		// Real snapshots taken in the QEMU guests by test/qemu (Debian 6.1 kernels).
		"arm64-qemu-cortex-a57-real": {core: "armv8_pmuv3", online: []int{0},
			pmus: []string{"armv8_pmuv3", "breakpoint", "kprobe", "software", "tracepoint", "uprobe"},
			check: func(t *testing.T, s *System) {
				p := s.PMUs["armv8_pmuv3"]
				// The generic PMUv3 driver lists only what QEMU's PMCEID advertises.
				if p.Type != 8 || p.Formats["event"].Mask() != 0xffff || len(p.Events) != 2 ||
					p.Events["inst_retired"].Terms != "event=0x0008" || p.Events["cpu_cycles"].Terms != "event=0x0011" {
					t.Errorf("armv8_pmuv3 = %+v", p)
				}
			}},
		"armv7-qemu-cortex-a7-real": {core: "armv7_cortex_a7", online: []int{0},
			pmus: []string{"armv7_cortex_a7", "breakpoint", "kprobe", "software", "tracepoint", "uprobe"},
			check: func(t *testing.T, s *System) {
				p := s.PMUs["armv7_cortex_a7"]
				if p.Type != 8 || p.Formats["event"].Mask() != 0xff || len(p.Events) < 20 ||
					p.Events["inst_retired"].Terms != "event=0x08" || p.Events["l1d_cache_refill"].Terms != "event=0x03" {
					t.Errorf("armv7_cortex_a7 = %+v", p)
				}
			}},
		"x86_64-kvm-epyc": {pmus: []string{"breakpoint", "msr", "software", "tracepoint", "uprobe"}, online: []int{0, 1},
			check: func(t *testing.T, s *System) {
				m := s.PMUs["msr"]
				if m.Type != 9 || m.Events["tsc"].Terms != "event=0x00" || m.Formats["event"].Bits() != 64 {
					t.Errorf("msr = %+v", m)
				}
			}},
		"arm64-cortex-a57-qemu": {core: "armv8_pmuv3_0", online: []int{0, 1},
			pmus: []string{"armv8_pmuv3_0", "breakpoint", "kprobe", "software", "tracepoint", "uprobe"},
			check: func(t *testing.T, s *System) {
				p := s.PMUs["armv8_pmuv3_0"]
				if p.Formats["event"].Mask() != 0xffff || p.Formats["long"].Word != 1 ||
					p.Events["inst_retired"].Terms != "event=0x0008" || p.Events["cpu_cycles"].Terms != "event=0x0011" ||
					!equalInts(p.CPUs, []int{0, 1}) {
					t.Errorf("armv8 = %+v", p)
				}
			}},
		"x86_64-intel-skylake": {core: "cpu", online: []int{0, 1, 2, 3, 4, 5, 6, 7},
			pmus: []string{"breakpoint", "cpu", "kprobe", "msr", "power", "software", "tracepoint", "uprobe"},
			check: func(t *testing.T, s *System) {
				c := s.PMUs["cpu"]
				if c.Type != 4 || c.Formats["cmask"].Mask() != 0xff000000 || c.Formats["ldlat"].Word != 1 ||
					c.Events["topdown-total-slots"].Scale != 4 || c.Caps["pmu_name"] != "skylake" {
					t.Errorf("cpu = %+v", c)
				}
			}},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			s, err := Discover(os.DirFS("testdata/sysfs/" + name))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Names(); len(got) != len(w.pmus) {
				t.Errorf("pmus = %v, want %v", got, w.pmus)
			} else {
				for i := range got {
					if got[i] != w.pmus[i] {
						t.Errorf("pmus = %v, want %v", got, w.pmus)
						break
					}
				}
			}
			core := ""
			if c := s.Core(); c != nil {
				core = c.Name
			}
			if core != w.core || !equalInts(s.Online, w.online) {
				t.Errorf("core %q online %v", core, s.Online)
			}
			w.check(t, s)
		})
	}
}

func TestTracepointID(t *testing.T) {
	epyc := os.DirFS("testdata/sysfs/x86_64-kvm-epyc")
	if id, err := TracepointID(epyc, "sched", "sched_switch"); err != nil || id != 372 {
		t.Errorf("sched:sched_switch = %d, %v", id, err)
	}
	// kernel/debug/tracing fallback
	sky := os.DirFS("testdata/sysfs/x86_64-intel-skylake")
	if id, err := TracepointID(sky, "sched", "sched_switch"); err != nil || id != 316 {
		t.Errorf("debugfs sched:sched_switch = %d, %v", id, err)
	}
	for _, tp := range [][2]string{{"sched", "nope"}, {"..", "sched"}, {"sched", "../sched/sched_switch"}, {"", "x"}} {
		if _, err := TracepointID(epyc, tp[0], tp[1]); !errors.Is(err, ErrNoTracepoint) {
			t.Errorf("%v: err %v", tp, err)
		}
	}
	bad := fstest.MapFS{"kernel/tracing/events/a/b/id": {Data: []byte("x\n")}}
	if _, err := TracepointID(bad, "a", "b"); err == nil {
		t.Error("bad id accepted")
	}
	if names := TracepointNames(epyc, "sched"); len(names) != 6 {
		t.Errorf("sched tracepoints = %v", names)
	}
}

// TestDiscoverLive reads this machine's /sys: every Linux kernel with perf events registers
// the software PMU as type 1 and the tracepoint PMU as type 2.
func TestDiscoverLive(t *testing.T) {
	if _, err := os.Stat("/sys/bus/event_source/devices/software"); err != nil {
		t.Skip("no perf events sysfs here")
	}
	s, err := Discover(os.DirFS("/sys"))
	if err != nil {
		t.Fatal(err)
	}
	if s.PMUs["software"].Type != 1 || s.PMUs["tracepoint"].Type != 2 || len(s.Online) == 0 {
		t.Errorf("live sysfs: software %+v tracepoint %+v online %v", s.PMUs["software"], s.PMUs["tracepoint"], s.Online)
	}
}

// The Raspberry Pi 1 / Zero kernel (Debian's linux-image-6.1.0-50-rpi, booted under QEMU's
// raspi0) registers armv6_1176 with a dynamic type and no format directory: it is the core
// PMU, with the 8-bit event field its counters have.
func TestARMv6CoreWithoutFormat(t *testing.T) {
	fsys := fstest.MapFS{
		"bus/event_source/devices/armv6_1176/type":   {Data: []byte("8\n")},
		"bus/event_source/devices/software/type":     {Data: []byte("1\n")},
		"bus/event_source/devices/breakpoint/type":   {Data: []byte("5\n")},
		"bus/event_source/devices/other/type":        {Data: []byte("9\n")},
		"bus/event_source/devices/armv7_oddity/type": {Data: []byte("10\n")},
	}
	sys, err := Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	c := sys.Core()
	if c == nil || c.Name != "armv6_1176" {
		t.Fatalf("Core() = %+v, want armv6_1176", c)
	}
	if f, ok := c.Formats["event"]; !ok || f.String() != "config:0-7" || len(c.Formats) != 1 {
		t.Errorf("armv6_1176 formats %v, want event config:0-7", c.Formats)
	}
	if len(sys.PMUs["armv7_oddity"].Formats) != 0 {
		t.Errorf("only ARMv6 PMUs get the implied field: %v", sys.PMUs["armv7_oddity"].Formats)
	}
}

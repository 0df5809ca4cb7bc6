package catalog

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadExtraPmuEvents(t *testing.T) {
	c := mustLoad(t)
	tb, err := c.LoadExtra(os.DirFS("testdata/extra/pmu-events"))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 4 || tb.Arch != "armv8" {
		t.Fatalf("%d events, arch %s", tb.Len(), tb.Arch)
	}
	e, ok := tb.Lookup("l1d_cache_refill")
	if !ok || e.Code != 0x03 || !e.ArchStd || e.Brief == "" {
		t.Errorf("ArchStdEvent L1D_CACHE_REFILL -> %+v", e)
	}
	e, _ = tb.Lookup("INST_RETIRED")
	if e.Code != 0x08 || !strings.HasPrefix(e.Brief, "Instructions retired (vendor") {
		t.Errorf("override: %+v", e)
	}
	e, _ = tb.Lookup("LD_DEP_STALL")
	if e.Code != 0xe7 || e.Description() != "Cycles the write-back stage waits on a load miss." {
		t.Errorf("LD_DEP_STALL: %+v", e)
	}
}

func TestLoadExtraIntelPerfmon(t *testing.T) {
	tb, err := mustLoad(t).LoadExtra(os.DirFS("testdata/extra/perfmon"))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Arch != "x86" || tb.Len() != 3 {
		t.Fatalf("arch %s, %d events", tb.Arch, tb.Len())
	}
	e, _ := tb.Lookup("MEM_LOAD_RETIRED.L1_MISS")
	if e.Code != 0xd1 || e.UMask != 0x08 || e.Config("x86") != 0x08d1 {
		t.Errorf("L1_MISS: %+v", e)
	}
	e, _ = tb.Lookup("OFFCORE_RESPONSE")
	if e.Code != 0xb7 {
		t.Errorf("two-code event kept code 0x%x, want the first (0xb7)", e.Code)
	}
}

func TestLoadExtraRejectsBadFiles(t *testing.T) {
	c := mustLoad(t)
	bad := map[string]string{
		"not json":       `{{`,
		"empty":          ``,
		"scalar":         `42`,
		"no events key":  `{"Header": {}}`,
		"no name":        `[{"EventCode": "0x11"}]`,
		"no code":        `[{"EventName": "X"}]`,
		"bad code":       `[{"EventName": "X", "EventCode": "zz"}]`,
		"unknown std":    `[{"ArchStdEvent": "NO_SUCH_EVENT"}]`,
		"duplicate":      `[{"EventName": "X", "EventCode": "1"}, {"EventName": "x", "EventCode": "2"}]`,
		"code too wide":  `[{"EventName": "X", "EventCode": "0x10000"}]`,
		"umask too wide": `[{"EventName": "X", "EventCode": "0x10", "UMask": "0x100"}]`,
		"renamed std":    `[{"ArchStdEvent": "INST_RETIRED", "EventName": "OTHER"}]`,
	}
	for name, body := range bad {
		_, err := c.LoadExtra(fstest.MapFS{"e.json": {Data: []byte(body)}})
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
	if _, err := c.LoadExtra(fstest.MapFS{"README": {Data: []byte("x")}}); !errors.Is(err, ErrFormat) {
		t.Errorf("dir without json: %v", err)
	}
}

func FuzzParseEventFile(f *testing.F) {
	for _, p := range []string{"testdata/extra/pmu-events/cache.json", "testdata/extra/perfmon/skylake_core.json", "data/arm/cortex-a7/events.json"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"EventCode": 17, "EventName": "N"}]`))
	f.Add([]byte(`{"Events": null}`))
	c, err := Load()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tb, err := c.LoadExtra(fstest.MapFS{"x.json": {Data: b}})
		if err != nil {
			if !errors.Is(err, ErrFormat) && !strings.Contains(err.Error(), "event file") {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		for _, e := range tb.Events() {
			if _, ok := tb.Lookup(e.Name); !ok {
				t.Fatalf("event %q not found by its own name", e.Name)
			}
		}
	})
}

func FuzzParseCPUInfo(f *testing.F) {
	for _, d := range []string{"x86-this-vm", "qemu-cortex-a7", "rpi1-arm1176", "rpi4-cortex-a72"} {
		if b, err := os.ReadFile("testdata/cpuinfo/" + d + "/proc/cpuinfo"); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cpu, err := Identify(fstest.MapFS{"proc/cpuinfo": {Data: b}})
		if err != nil {
			if !errors.Is(err, ErrUnknownCPU) {
				t.Fatalf("error without ErrUnknownCPU: %v", err)
			}
			return
		}
		if cpu.ISA != "x86" && cpu.ISA != "arm" {
			t.Fatalf("ISA %q", cpu.ISA)
		}
		_ = cpu.String()
	})
}

package catalog

import (
	"errors"
	"os"
	"testing"
	"testing/fstest"
)

func TestIdentifySnapshots(t *testing.T) {
	c := mustLoad(t)
	cases := []struct {
		dir   string
		cpu   CPU
		table string
	}{
		{"x86-this-vm", CPU{ISA: "x86", Vendor: "AuthenticAMD", Family: 25, Model: 1}, "amd-zen3"},
		{"qemu-cortex-a57", CPU{ISA: "arm", Implementer: 0x41, Variant: 1, Part: 0xd07, Architecture: 8}, "cortex-a57"},
		{"qemu-cortex-a7", CPU{ISA: "arm", Implementer: 0x41, Part: 0xc07, Revision: 5, Architecture: 7}, "cortex-a7"},
		{"rpi1-arm1176", CPU{ISA: "arm", Implementer: 0x41, Part: 0xb76, Revision: 7, Architecture: 7}, "arm1176"},
		{"rpi3-cortex-a53-32bit", CPU{ISA: "arm", Implementer: 0x41, Part: 0xd03, Revision: 4, Architecture: 7}, "cortex-a53-aarch32"},
		{"rpi4-cortex-a72", CPU{ISA: "arm", Implementer: 0x41, Part: 0xd08, Revision: 3, Architecture: 8}, "cortex-a72"},
		{"midr-only-neoverse-n1", CPU{ISA: "arm", Implementer: 0x41, Variant: 3, Part: 0xd0c, Revision: 1, Architecture: 8}, "neoverse-n1"},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			cpu, err := Identify(os.DirFS("testdata/cpuinfo/" + tc.dir))
			if err != nil {
				t.Fatal(err)
			}
			cpu.ModelName, cpu.Stepping = "", 0
			if cpu != tc.cpu {
				t.Fatalf("Identify = %+v, want %+v", cpu, tc.cpu)
			}
			tb, ok := c.ForCPU(cpu)
			if !ok || tb.Name != tc.table {
				t.Fatalf("ForCPU(%v) = %v, %v; want %s", cpu, tb, ok, tc.table)
			}
		})
	}
}

func TestIdentifyFailures(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"empty":     {},
		"riscv":     {"proc/cpuinfo": {Data: mustRead(t, "testdata/cpuinfo/unknown-riscv/proc/cpuinfo")}},
		"bad midr":  {midrPath: {Data: []byte("garbage\n")}},
		"truncated": {"proc/cpuinfo": {Data: []byte("processor\t: 0\nCPU implem")}},
	} {
		if cpu, err := Identify(fsys); !errors.Is(err, ErrUnknownCPU) {
			t.Errorf("%s: Identify = %+v, %v; want ErrUnknownCPU", name, cpu, err)
		}
	}
}

func TestUnknownPartsFallBack(t *testing.T) {
	c := mustLoad(t)
	x1 := CPU{ISA: "arm", Implementer: 0x41, Part: 0xd44, Architecture: 8} // Cortex-X1: no table of its own
	if tb, ok := c.ForCPU(x1); ok {
		t.Fatalf("ForCPU(X1) = %s", tb.Name)
	}
	if tb := c.Fallback(x1); tb == nil || tb.Name != "armv8" {
		t.Errorf("Fallback(X1) = %v", tb)
	}
	a17 := CPU{ISA: "arm", Implementer: 0x41, Part: 0xc0e, Architecture: 7}
	if tb := c.Fallback(a17); tb == nil || tb.Name != "armv7" {
		t.Errorf("Fallback(A17) = %v", tb)
	}
	zen2 := CPU{ISA: "x86", Vendor: "AuthenticAMD", Family: 0x17, Model: 0x31}
	if tb, ok := c.ForCPU(zen2); ok || c.Fallback(zen2) != nil {
		t.Errorf("zen2 matched %v", tb)
	}
	for model, want := range map[int]string{0x00: "amd-zen3", 0x0f: "amd-zen3", 0x10: "amd-zen4", 0x21: "amd-zen3", 0x5f: "amd-zen3", 0x61: "amd-zen4", 0xaf: "amd-zen4"} {
		tb, ok := c.ForCPU(CPU{ISA: "x86", Vendor: "AuthenticAMD", Family: 0x19, Model: model})
		if !ok || tb.Name != want {
			t.Errorf("family 0x19 model %#x -> %v, want %s", model, tb, want)
		}
	}
	if _, ok := c.ForCPU(CPU{ISA: "x86", Vendor: "AuthenticAMD", Family: 0x19, Model: 0xb0}); ok {
		t.Error("model 0xb0 matched")
	}
	if tb, ok := c.ForCPU(CPU{ISA: "x86", Vendor: "GenuineIntel", Family: 6, Model: 0x8f}); !ok || tb.Name != "intel-arch" {
		t.Errorf("Intel -> %v", tb)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

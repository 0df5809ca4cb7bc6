package host

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestReadPlatformThisVM reads the recorded snapshot of the development VM.
func TestReadPlatformThisVM(t *testing.T) {
	p := ReadPlatform(os.DirFS(filepath.Join("testdata/hosts", "fc-kvm")), os.DirFS(filepath.Join("testdata/hosts", "fc-kvm-sys")), "KVMKVMKVM")
	config, from := p.KernelConfig()
	if p.Arch != "x86_64" || !p.HypervisorFlag || p.ACPIOEM != "FIRECK" || config["CONFIG_PERF_EVENTS"] != "y" ||
		from != "/proc/config.gz" || p.Sysctl["perf_event_paranoid"] != "2" || p.Seccomp != 0 || p.UID != 0 ||
		!p.HasCap(CapSysAdmin) || p.DeviceTree != nil || p.MADTPMUIRQs != nil {
		t.Errorf("%+v config from %q", p, from)
	}
}

func TestParseKernelConfig(t *testing.T) {
	c := ParseKernelConfig([]byte("CONFIG_PERF_EVENTS=y\n# CONFIG_HW_PERF_EVENTS is not set\nCONFIG_X=\"a\"\n# comment\n"))
	if c["CONFIG_PERF_EVENTS"] != "y" || c["CONFIG_HW_PERF_EVENTS"] != "n" || c["CONFIG_X"] != "a" || len(c) != 3 {
		t.Errorf("%v", c)
	}
}

// madt builds an MADT with one GICC entry per irq.
func madt(oem string, irqs ...uint32) []byte {
	b := make([]byte, 44)
	copy(b, "APIC")
	copy(b[10:16], oem)
	for _, irq := range irqs {
		e := make([]byte, 80)
		e[0], e[1] = 0x0b, 80
		binary.LittleEndian.PutUint32(e[48:], irq)
		b = append(b, e...)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)))
	return b
}

func TestParseMADT(t *testing.T) {
	oem, irqs := ParseMADT(madt("ARMLTD", 23, 23))
	if oem != "ARMLTD" || len(irqs) != 2 || irqs[0] != 23 {
		t.Errorf("%q %v", oem, irqs)
	}
	if _, irqs := ParseMADT(madt("QEMU", 0)); len(irqs) != 1 || irqs[0] != 0 {
		t.Errorf("%v", irqs)
	}
}

func FuzzPlatformParsers(f *testing.F) {
	f.Add(madt("X", 1))
	f.Add([]byte("CONFIG_A=y\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseMADT(b)
		ParseKernelConfig(b)
	})
}

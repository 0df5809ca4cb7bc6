package doctor

import (
	"slices"
	"strings"

	"github.com/pmc-tools/pmc/internal/host"
)

// Hypervisor names the hypervisor pmc found ("" on bare metal or when none is recognisable)
// and the evidence it found it by.
type Hypervisor struct {
	Name     string // "KVM", "Firecracker (KVM)", "VMware", "Hyper-V", "Xen", "QEMU TCG", "QEMU", "virtual machine"
	Evidence []string
}

// DetectHypervisor reads the CPUID hypervisor leaf, DMI, /sys/hypervisor, the ACPI tables'
// OEM, the clock sources and the device tree.
func DetectHypervisor(p *host.Platform) Hypervisor {
	var h Hypervisor
	add := func(name, evidence string) {
		if h.Name == "" {
			h.Name = name
		}
		h.Evidence = append(h.Evidence, evidence)
	}
	switch v := p.CPUIDVendor; {
	case v == "KVMKVMKVM":
		add("KVM", "CPUID leaf 0x40000000 says KVMKVMKVM")
	case v == "Microsoft Hv":
		add("Hyper-V", "CPUID leaf 0x40000000 says Microsoft Hv")
	case v == "VMwareVMware":
		add("VMware", "CPUID leaf 0x40000000 says VMwareVMware")
	case v == "XenVMMXenVMM":
		add("Xen", "CPUID leaf 0x40000000 says XenVMMXenVMM")
	case v == "TCGTCGTCGTCG":
		add("QEMU TCG", "CPUID leaf 0x40000000 says TCGTCGTCGTCG (QEMU without KVM)")
	case v != "":
		add(v, "CPUID leaf 0x40000000 says "+v)
	}
	if p.ACPIOEM == "FIRECK" {
		h.Evidence = append(h.Evidence, "ACPI tables by FIRECK (Firecracker)")
		if h.Name == "" || h.Name == "KVM" {
			h.Name = "Firecracker (KVM)"
		}
	}
	switch dmi := p.DMIVendor; {
	case dmi == "":
	case strings.HasPrefix(dmi, "VMware"):
		add("VMware", "DMI vendor "+dmi)
	case strings.HasPrefix(dmi, "Microsoft"):
		add("Hyper-V", "DMI vendor "+dmi)
	case dmi == "Xen":
		add("Xen", "DMI vendor Xen")
	case dmi == "QEMU":
		add("QEMU", "DMI vendor QEMU ("+p.DMIProduct+")")
	case strings.HasPrefix(dmi, "Amazon EC2"):
		add("KVM", "DMI vendor Amazon EC2 (Nitro)")
	case dmi == "Google":
		add("KVM", "DMI vendor Google (Compute Engine)")
	}
	if p.XenType != "" {
		add("Xen", "/sys/hypervisor/type is "+p.XenType)
	}
	if slices.Contains(p.Clocksources, "kvm-clock") {
		add("KVM", "clock source kvm-clock")
	}
	if p.DeviceTree != nil && (p.DeviceTree.Model == "linux,dummy-virt" || strings.Contains(p.DeviceTree.Model, "QEMU")) {
		add("QEMU", "device tree model "+p.DeviceTree.Model+" (QEMU's virt board)")
	}
	if h.Name == "" && p.HypervisorFlag {
		add("virtual machine", "cpuinfo flag hypervisor")
	}
	return h
}

// hypervisorFix is how to give a guest of h a PMU.
func hypervisorFix(h Hypervisor, arch string) []string {
	arm := strings.HasPrefix(arch, "arm") || arch == "aarch64"
	switch h.Name {
	case "Firecracker (KVM)":
		return []string{
			"Firecracker gives its guests no PMU (its CPU templates clear the PMU's CPUID leaves); count on bare metal",
			"or in a VM whose hypervisor exposes one (QEMU/libvirt with -cpu host,pmu=on); here: pmc stat --sim -- CMD",
		}
	case "KVM", "QEMU":
		fix := []string{"libvirt: <cpu mode='host-passthrough'/> and <features><pmu state='on'/></features>; QEMU: -enable-kvm -cpu host,pmu=on;",
			"the host's kvm module needs enable_pmu=1. Clouds: choose an instance type with a PMU (e.g. EC2 metal or full-socket sizes, GCE --performance-monitoring-unit=standard)"}
		if arm {
			fix[0] = "QEMU/KVM on Arm: -cpu host (pmu=on is the default) and a kernel with the PMU node; libvirt: <pmu state='on'/>;"
		}
		return fix
	case "QEMU TCG":
		if arm {
			return []string{"QEMU TCG emulates the PMU of -cpu cortex-a*,pmu=on (the default): give the guest the device tree's PMU node (see the device tree check)"}
		}
		return []string{"QEMU's TCG emulates no x86 PMU: run with KVM (-enable-kvm -cpu host,pmu=on), or use pmc stat --sim"}
	case "VMware":
		return []string{"VMware: enable \"Virtualize CPU performance counters\" in the VM's CPU settings (vpmc.enable = \"TRUE\" in the .vmx; hardware version 9 or later)"}
	case "Hyper-V":
		return []string{"Hyper-V: on the host, with the VM off: Set-VMProcessor -VMName NAME -Perfmon @(\"pmu\") (Windows Server 2022/Windows 11 hosts and later)"}
	case "Xen":
		return []string{"Xen: boot the hypervisor with vpmu=on (Xen command line), and give the guest a CPU with the PMU (e.g. cpuid passthrough)"}
	}
	return []string{"enable the virtual PMU in the hypervisor's CPU settings (KVM: -cpu host,pmu=on; VMware: virtualize CPU performance counters; Hyper-V: -Perfmon pmu)"}
}

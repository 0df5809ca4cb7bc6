package host

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pmc-tools/pmc/internal/unix"
)

// Platform is what `pmc doctor` needs to know of a machine beyond its PMUs: the hypervisor,
// the kernel's configuration, the firmware's description of the PMU (device tree, ACPI),
// the perf sysctls and this process's privileges. Every field comes from a file of the
// root or sysfs snapshot, except CPUIDVendor (an instruction, given by the caller).
type Platform struct {
	Arch string // uname -m: proc/sys/kernel/arch, or cpuinfo's guess
	// BinaryArch is runtime.GOARCH of the pmc that reads the facts ("" for a snapshot): an
	// arm pmc on an x86_64 kernel runs under a user-mode emulator (Emulated).
	BinaryArch  string
	Release     string // proc/sys/kernel/osrelease
	CPUIDVendor string // CPUID leaf 0x40000000's signature ("KVMKVMKVM"); "" none or not x86

	HypervisorFlag bool     // proc/cpuinfo flags name "hypervisor" (x86 guests)
	DMIVendor      string   // sys/class/dmi/id/sys_vendor
	DMIProduct     string   // sys/class/dmi/id/product_name
	XenType        string   // sys/hypervisor/type
	ACPIOEM        string   // the OEM ID of sys/firmware/acpi/tables/APIC (MADT), e.g. "FIRECK"
	Clocksources   []string // sys/devices/system/clocksource/clocksource0/available_clocksource

	DeviceTree *DeviceTree // nil: the machine has no device tree (x86, ACPI arm64)
	// MADTPMUIRQs are the performance interrupts (GSIV) of the MADT's GICC entries, one per
	// CPU (0: none given); nil when there is no MADT with GICC entries (x86, device tree).
	MADTPMUIRQs []uint32

	Sysctl map[string]string // kernel.perf_event_paranoid, ..._max_sample_rate, ..._mlock_kb, nmi_watchdog
	// Lockdown is the active kernel lockdown mode ("none", "integrity", "confidentiality"),
	// "" when the kernel has no lockdown LSM.
	Lockdown string

	Seccomp        int    // /proc/self/status Seccomp: 0 off, 1 strict, 2 filter; -1 unknown
	SeccompFilters int    // Seccomp_filters
	CapEff         uint64 // effective capabilities
	UID            int    // real uid; -1 unknown
	Container      string // "docker", "podman", "kubernetes", "lxc", "container" or ""

	RDPMC string // sys/bus/event_source/devices/cpu/rdpmc (x86: 0 off, 1 own events, 2 all); "" none

	// The costly facts are read on first use (KernelConfig, PerfUsers): pmc stat's hint about
	// a missing PMU needs neither on most machines, pmc doctor both.
	root      fs.FS
	config    sync.Once
	configMap map[string]string
	configSrc string
	users     sync.Once
	userPids  []int
}

// KernelConfig is the kernel's CONFIG_ options ("y", "m", or "n" for "is not set") and the
// file they come from ("/proc/config.gz" or "/boot/config-RELEASE"); nil when neither
// exists. Read on the first call (decompressing /proc/config.gz takes milliseconds).
func (p *Platform) KernelConfig() (map[string]string, string) {
	p.config.Do(func() { p.configMap, p.configSrc = readKernelConfig(p.root, p.Release) })
	return p.configMap, p.configSrc
}

// PerfUsers are the other processes holding perf_event fds (proc/PID/fd links to
// anon_inode:[perf_event]); nil when none or the links cannot be read. Read on the first
// call: it reads the fd links of every process.
func (p *Platform) PerfUsers() []int {
	p.users.Do(func() { p.userPids = perfUsers(p.root) })
	return p.userPids
}

// DeviceTree is what the device tree says about the CPUs and their PMU.
type DeviceTree struct {
	Model         string
	CPUCompatible []string // compatible of each cpus/cpu@N node, in order, deduplicated
	PMUs          []DTNode // the root's nodes whose compatible names a PMU
}

// DTNode is one device-tree node.
type DTNode struct {
	Path       string   // "/pmu"
	Compatible []string // "arm,cortex-a7-pmu"
	Interrupts bool     // it has an interrupts (or interrupts-extended) property
	Affinity   bool     // interrupt-affinity
	Status     string   // "okay", "disabled" or "" (okay)
}

// Capability bits of CapEff.
const (
	CapSysAdmin = 21
	CapPerfmon  = 38
)

// HasCap says whether the effective set holds capability bit.
func (p *Platform) HasCap(bit uint) bool { return p.CapEff&(1<<bit) != 0 }

// ReadPlatform reads the platform facts of the machine whose root is root and sysfs is sys
// (KernelConfig and PerfUsers when first asked). Missing files leave fields empty; nothing
// fails.
func ReadPlatform(root, sys fs.FS, cpuidVendor string) *Platform {
	p := &Platform{CPUIDVendor: cpuidVendor, Seccomp: -1, UID: -1, Sysctl: map[string]string{}, root: root}
	str := func(f fs.FS, name string) string {
		b, err := fs.ReadFile(f, name)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	p.Arch = str(root, "proc/sys/kernel/arch")
	p.Release = str(root, "proc/sys/kernel/osrelease")
	cpuinfo := str(root, "proc/cpuinfo")
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != "flags" {
			continue
		}
		for _, fl := range strings.Fields(v) {
			if fl == "hypervisor" {
				p.HypervisorFlag = true
			}
		}
		break
	}
	if p.Arch == "" {
		p.Arch = guessArch(cpuinfo)
	}
	p.DMIVendor = str(sys, "class/dmi/id/sys_vendor")
	p.DMIProduct = str(sys, "class/dmi/id/product_name")
	p.XenType = str(sys, "hypervisor/type")
	p.Clocksources = strings.Fields(str(sys, "devices/system/clocksource/clocksource0/available_clocksource"))
	if madt, err := fs.ReadFile(sys, "firmware/acpi/tables/APIC"); err == nil {
		p.ACPIOEM, p.MADTPMUIRQs = ParseMADT(madt)
	}
	p.DeviceTree = readDeviceTree(sys, "firmware/devicetree/base")
	if p.DeviceTree == nil {
		p.DeviceTree = readDeviceTree(root, "proc/device-tree")
	}
	p.RDPMC = str(sys, "bus/event_source/devices/cpu/rdpmc")
	for _, k := range []string{"perf_event_paranoid", "perf_event_max_sample_rate", "perf_event_mlock_kb", "nmi_watchdog", "perf_user_access"} {
		if v := str(root, "proc/sys/kernel/"+k); v != "" {
			p.Sysctl[k] = v
		}
	}
	if l := str(sys, "kernel/security/lockdown"); l != "" { // "[none] integrity confidentiality"
		if i := strings.IndexByte(l, '['); i >= 0 {
			if j := strings.IndexByte(l[i:], ']'); j > 0 {
				p.Lockdown = l[i+1 : i+j]
			}
		}
	}

	p.readStatus(str(root, "proc/self/status"))
	p.Container = detectContainer(root, str(root, "proc/self/cgroup"))
	return p
}

// livePlatform is this machine's platform facts, read at the first call of LivePlatform.
var livePlatform struct {
	once sync.Once
	p    *Platform
}

// LivePlatform reads this machine's platform facts once per process.
func LivePlatform() *Platform {
	livePlatform.once.Do(func() {
		p := ReadPlatform(unix.DirFS("/"), unix.DirFS("/sys"), unix.HypervisorVendor())
		p.BinaryArch = runtime.GOARCH
		livePlatform.p = p
	})
	return livePlatform.p
}

// Emulated says pmc runs under a user-mode emulator (qemu-arm, qemu-aarch64): its binary is
// for another family of CPUs than the kernel's. Such an emulator passes most system calls to
// the kernel, but not perf_event_open.
func (p *Platform) Emulated() bool {
	family := func(arch string) string {
		switch {
		case arch == "amd64" || arch == "386" || arch == "x86_64" || len(arch) == 4 && arch[0] == 'i' && arch[2:] == "86":
			return "x86"
		case strings.HasPrefix(arch, "arm") || arch == "aarch64":
			return "arm"
		case arch == "riscv64":
			return "riscv"
		}
		return ""
	}
	b, k := family(p.BinaryArch), family(p.Arch)
	return b != "" && k != "" && b != k
}

func guessArch(cpuinfo string) string {
	switch {
	case strings.Contains(cpuinfo, "vendor_id"):
		return "x86_64"
	case strings.Contains(cpuinfo, "CPU architecture: 8"):
		return "aarch64"
	case strings.Contains(cpuinfo, "CPU architecture"):
		return "armv7l"
	}
	return ""
}

func (p *Platform) readStatus(status string) {
	for _, line := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch k {
		case "Seccomp":
			p.Seccomp, _ = strconv.Atoi(f[0])
		case "Seccomp_filters":
			p.SeccompFilters, _ = strconv.Atoi(f[0])
		case "CapEff":
			p.CapEff, _ = strconv.ParseUint(f[0], 16, 64)
		case "Uid":
			p.UID, _ = strconv.Atoi(f[0])
		}
	}
}

func detectContainer(root fs.FS, cgroup string) string {
	exists := func(name string) bool { _, err := fs.Stat(root, name); return err == nil }
	switch {
	case strings.Contains(cgroup, "kubepods"):
		return "kubernetes"
	case exists(".dockerenv") || strings.Contains(cgroup, "docker"):
		return "docker"
	case exists("run/.containerenv") || strings.Contains(cgroup, "libpod"):
		return "podman"
	case strings.Contains(cgroup, "lxc"):
		return "lxc"
	}
	return ""
}

// perfUsers lists the processes other than this one with a perf_event fd open.
func perfUsers(root fs.FS) []int {
	self := -1
	if l, err := fs.ReadLink(root, "proc/self"); err == nil {
		self, _ = strconv.Atoi(l)
	}
	procs, err := fs.ReadDir(root, "proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := "proc/" + e.Name() + "/fd"
		fds, err := fs.ReadDir(root, dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := fs.ReadLink(root, dir+"/"+fd.Name()); err == nil && l == "anon_inode:[perf_event]" {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// readKernelConfig reads /proc/config.gz, else /boot/config-RELEASE.
func readKernelConfig(root fs.FS, release string) (map[string]string, string) {
	if b, err := fs.ReadFile(root, "proc/config.gz"); err == nil {
		if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
			if text, err := io.ReadAll(io.LimitReader(zr, 16<<20)); err == nil {
				return ParseKernelConfig(text), "/proc/config.gz"
			}
		}
	}
	if release != "" {
		if b, err := fs.ReadFile(root, "boot/config-"+release); err == nil {
			return ParseKernelConfig(b), "/boot/config-" + release
		}
	}
	return nil, ""
}

// ParseKernelConfig reads a kernel .config: "CONFIG_X=y" and "# CONFIG_X is not set" ("n").
func ParseKernelConfig(b []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			if name, ok := strings.CutSuffix(rest, " is not set"); ok && strings.HasPrefix(name, "CONFIG_") {
				out[name] = "n"
			}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "CONFIG_") {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
}

// ParseMADT reads the OEM ID of an ACPI MADT ("APIC" table) and the performance interrupt
// of each GICC entry (type 0x0B; GSIV at offset 48 of the entry).
func ParseMADT(b []byte) (oem string, pmuIRQs []uint32) {
	if len(b) < 44 || string(b[:4]) != "APIC" {
		return "", nil
	}
	oem = strings.TrimRight(string(b[10:16]), " \x00")
	n := int(binary.LittleEndian.Uint32(b[4:8]))
	if n > len(b) {
		n = len(b)
	}
	for off := 44; off+2 <= n; {
		typ, l := b[off], int(b[off+1])
		if l < 2 || off+l > n {
			break
		}
		if typ == 0x0b && l >= 52 {
			pmuIRQs = append(pmuIRQs, binary.LittleEndian.Uint32(b[off+48:off+52]))
		}
		off += l
	}
	return oem, pmuIRQs
}

// readDeviceTree reads the nodes pmc needs under dir (a devicetree/base directory).
func readDeviceTree(fsys fs.FS, dir string) *DeviceTree {
	top, err := fs.ReadDir(fsys, dir)
	if err != nil || len(top) == 0 {
		return nil
	}
	dt := &DeviceTree{}
	prop := func(node, name string) ([]byte, bool) {
		b, err := fs.ReadFile(fsys, path.Join(dir, node, name))
		return b, err == nil
	}
	if b, ok := prop("", "model"); ok {
		dt.Model = strings.Join(splitNUL(b), " ")
	}
	seen := map[string]bool{}
	if cpus, err := fs.ReadDir(fsys, path.Join(dir, "cpus")); err == nil {
		for _, c := range cpus {
			if !c.IsDir() || !strings.HasPrefix(c.Name(), "cpu@") {
				continue
			}
			if b, ok := prop("cpus/"+c.Name(), "compatible"); ok {
				for _, s := range splitNUL(b) {
					if !seen[s] {
						seen[s] = true
						dt.CPUCompatible = append(dt.CPUCompatible, s)
					}
				}
			}
		}
	}
	for _, e := range top {
		if !e.IsDir() {
			continue
		}
		b, _ := prop(e.Name(), "compatible")
		compat := splitNUL(b)
		if !cpuPMUNode(e.Name(), compat) {
			continue
		}
		n := DTNode{Path: "/" + e.Name(), Compatible: compat}
		_, n.Interrupts = prop(e.Name(), "interrupts")
		if _, ok := prop(e.Name(), "interrupts-extended"); ok {
			n.Interrupts = true
		}
		_, n.Affinity = prop(e.Name(), "interrupt-affinity")
		if s, ok := prop(e.Name(), "status"); ok {
			n.Status = strings.Join(splitNUL(s), "")
		}
		dt.PMUs = append(dt.PMUs, n)
	}
	sort.Slice(dt.PMUs, func(i, j int) bool { return dt.PMUs[i].Path < dt.PMUs[j].Path })
	return dt
}

// cpuPMUNode says whether a root node describes the CPUs' PMU: named pmu (QEMU's virt board
// leaves an empty "pmu { };"), or compatible with a CPU PMU binding (not cache or
// interconnect PMUs such as arm,cci-400-pmu).
func cpuPMUNode(name string, compat []string) bool {
	base, _, _ := strings.Cut(name, "@")
	for _, c := range compat {
		for _, p := range []string{"arm,cortex-", "arm,armv8-pmuv3", "arm,arm11", "arm,arm1176", "arm,neoverse", "qcom,krait", "qcom,scorpion", "apple,"} {
			if strings.HasPrefix(c, p) && strings.Contains(c, "pmu") {
				return true
			}
		}
	}
	return base == "pmu" || base == "arm-pmu" || base == "cpu-pmu"
}

func splitNUL(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

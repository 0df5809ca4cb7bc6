package catalog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// ErrUnknownCPU is returned when neither /proc/cpuinfo nor sysfs identify the CPU.
var ErrUnknownCPU = errors.New("cannot identify the CPU")

// CPU is a processor identity as Linux reports it.
type CPU struct {
	ISA string // "x86" or "arm"

	// x86 (from /proc/cpuinfo)
	Vendor   string // vendor_id: "GenuineIntel", "AuthenticAMD"
	Family   int
	Model    int
	Stepping int

	// Arm (MIDR fields, from /proc/cpuinfo or midr_el1)
	Implementer int // 0x41 = Arm Ltd
	Variant     int
	Part        int // 0xc07 = Cortex-A7, 0xd07 = Cortex-A57, ...
	Revision    int
	// Architecture is what cpuinfo calls "CPU architecture": 8 under a 64-bit kernel, 7 for
	// ARMv7 cores and also for ARM1176 and for Armv8 cores under a 32-bit kernel.
	Architecture int

	ModelName string // "model name" when present
}

func (c CPU) String() string {
	switch c.ISA {
	case "x86":
		s := fmt.Sprintf("%s family 0x%x model 0x%x", c.Vendor, c.Family, c.Model)
		if c.ModelName != "" {
			s += " (" + c.ModelName + ")"
		}
		return s
	case "arm":
		return fmt.Sprintf("Arm implementer 0x%02x part 0x%03x (cpuinfo architecture %d)", c.Implementer, c.Part, c.Architecture)
	}
	return "unknown CPU"
}

const midrPath = "sys/devices/system/cpu/cpu0/regs/identification/midr_el1"

// Identify reads the identity of CPU 0 from fsys, which is rooted at / (os.DirFS("/") on a
// live system, a snapshot directory in tests): proc/cpuinfo first, then midr_el1 in sysfs
// for Arm fields cpuinfo lacks.
func Identify(fsys fs.FS) (CPU, error) {
	raw, cpuErr := fs.ReadFile(fsys, "proc/cpuinfo")
	var cpu CPU
	if cpuErr == nil {
		cpu = parseCPUInfo(raw)
	}
	if cpu.ISA == "x86" {
		return cpu, nil
	}
	if cpu.ISA == "arm" && cpu.Part != 0 {
		return cpu, nil
	}
	midr, err := fs.ReadFile(fsys, midrPath)
	if err == nil {
		v, perr := strconv.ParseUint(strings.TrimSpace(string(midr)), 0, 64)
		if perr != nil {
			return CPU{}, fmt.Errorf("%w: %s: %v", ErrUnknownCPU, midrPath, perr)
		}
		cpu.ISA = "arm"
		cpu.Implementer = int(v >> 24 & 0xff)
		cpu.Variant = int(v >> 20 & 0xf)
		cpu.Part = int(v >> 4 & 0xfff)
		cpu.Revision = int(v & 0xf)
		if cpu.Architecture == 0 {
			cpu.Architecture = 8 // midr_el1 exists only under arm64 kernels
		}
		return cpu, nil
	}
	if cpuErr != nil {
		return CPU{}, fmt.Errorf("%w: %v (and no %s)", ErrUnknownCPU, cpuErr, midrPath)
	}
	return CPU{}, fmt.Errorf("%w: proc/cpuinfo has neither vendor_id nor CPU implementer/part", ErrUnknownCPU)
}

// parseCPUInfo reads the first value of each key of /proc/cpuinfo.
func parseCPUInfo(raw []byte) CPU {
	kv := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := kv[k]; !seen {
			kv[k] = v
		}
	}
	num := func(k string) (int, bool) {
		s, ok := kv[k]
		if !ok {
			return 0, false
		}
		n, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return 0, false
		}
		return int(n), true
	}
	var cpu CPU
	cpu.ModelName = kv["model name"]
	if v := kv["vendor_id"]; v != "" {
		cpu.ISA, cpu.Vendor = "x86", v
		cpu.Family, _ = num("cpu family")
		cpu.Model, _ = num("model")
		cpu.Stepping, _ = num("stepping")
		return cpu
	}
	impl, okI := num("CPU implementer")
	part, okP := num("CPU part")
	arch := kv["CPU architecture"]
	if !okI && !okP && arch == "" {
		return CPU{}
	}
	cpu.ISA = "arm"
	cpu.Implementer, cpu.Part = impl, part
	cpu.Variant, _ = num("CPU variant")
	cpu.Revision, _ = num("CPU revision")
	switch {
	case strings.EqualFold(arch, "AArch64"):
		cpu.Architecture = 8
	default:
		if a, err := strconv.Atoi(arch); err == nil {
			cpu.Architecture = a
		}
	}
	if cpu.ModelName == "" {
		cpu.ModelName = kv["Processor"]
	}
	return cpu
}

package metrics

import "strings"

// Core is what the planner and the plausibility checks need to know about a CPU core.
type Core struct {
	Name       string  // lowercase, as in device trees: "cortex-a7", "arm1176"
	Arch       string  // see Arch
	Counters   int     // general-purpose PMU counters
	IssueWidth float64 // most instructions it can issue per cycle
	Part       uint64  // MIDR part number (/proc/cpuinfo "CPU part"), implementer 0x41 (Arm)
}

// Machine is the planner's view of the core: its counters plus the dedicated cycle counter
// every core in the table has.
func (c Core) Machine() Machine {
	return Machine{Counters: c.Counters, CycleCounter: true, Arch: c.Arch}
}

// cores: counter counts from each core's technical reference manual (PMCR.N), checked under
// QEMU for cortex-a7 (4) and cortex-a57 (6); issue widths: single-issue ARM1176 and Cortex-A5,
// (partial) dual issue A7/A8/A9/A53/A55/A73, three-wide A15/A57/A72, four-wide A76.
var cores = []Core{
	{"arm1176", ArchARM1176, 2, 1, 0xb76},
	{"cortex-a5", ArchARMv7, 2, 1, 0xc05},
	{"cortex-a7", ArchARMv7, 4, 2, 0xc07},
	{"cortex-a8", ArchARMv7, 4, 2, 0xc08},
	{"cortex-a9", ArchARMv7, 6, 2, 0xc09},
	{"cortex-a15", ArchARMv7, 6, 3, 0xc0f},
	{"cortex-a53", ArchARMv8, 6, 2, 0xd03},
	{"cortex-a55", ArchARMv8, 6, 2, 0xd05},
	{"cortex-a57", ArchARMv8, 6, 3, 0xd07},
	{"cortex-a72", ArchARMv8, 6, 3, 0xd08},
	{"cortex-a73", ArchARMv8, 6, 2, 0xd09},
	{"cortex-a76", ArchARMv8, 6, 4, 0xd0b},
}

// LookupCore finds a core by name ("Cortex-A7", "cortex-a7" or "arm1176").
func LookupCore(name string) (Core, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, c := range cores {
		if c.Name == name {
			return c, true
		}
	}
	return Core{}, false
}

// CoreByPart finds an Arm core by the implementer and part numbers of /proc/cpuinfo
// ("CPU implementer : 0x41", "CPU part : 0xc07").
func CoreByPart(implementer, part uint64) (Core, bool) {
	if implementer != 0x41 {
		return Core{}, false
	}
	for _, c := range cores {
		if c.Part == part {
			return c, true
		}
	}
	return Core{}, false
}

// IssueWidth returns how many instructions per cycle the named core can issue at most, 0
// when unknown (Options.IssueWidth 0 skips the IPC check).
func IssueWidth(core string) float64 {
	c, _ := LookupCore(core)
	return c.IssueWidth
}

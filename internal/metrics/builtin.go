package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// Architectures with their own built-in expressions. Arch maps a sysfs PMU name to one.
const (
	ArchGeneric = ""        // perf's generic event names; the kernel maps them per CPU
	ArchX86     = "x86"     // PMU "cpu"
	ArchARMv7   = "armv7"   // Cortex-A5/A7/A8/A9/A15 (armv7_cortex_*): cycle counter event 0xFF
	ArchARMv8   = "armv8"   // armv8_pmuv3*, armv8_cortex_*: cycle counter event 0x11
	ArchARM1176 = "arm1176" // armv6_1176 (Raspberry Pi 1): 2 counters + cycle counter, raw codes below
)

// Arch returns the architecture for a sysfs PMU name ("armv7_cortex_a7" -> ArchARMv7).
func Arch(pmu string) string {
	switch {
	case pmu == "cpu" || strings.HasPrefix(pmu, "cpu_"):
		return ArchX86
	case pmu == "armv6_1176" || pmu == "armv6_11mpcore":
		return ArchARM1176
	case strings.HasPrefix(pmu, "armv7_"):
		return ArchARMv7
	case strings.HasPrefix(pmu, "armv8_"):
		return ArchARMv8
	}
	return ArchGeneric
}

// Built-in metric group names.
const (
	GroupDefault  = "default"  // what perf stat prints without -M
	GroupIPC      = "ipc"      // instructions and cycles
	GroupCache    = "cache"    // cache miss ratios and rates
	GroupTLB      = "tlb"      // TLB miss rates
	GroupBranch   = "branch"   // branch rates and mispredictions
	GroupStall    = "stall"    // pipeline stall shares
	GroupSoftware = "software" // per-second rates of kernel software events
	GroupRpistat  = "rpistat"  // the rpistat report for the ARM1176
)

// Units of the built-in metrics.
const (
	UnitPercent = "%"
	UnitPTI     = "PTI" // per thousand instructions (often called MPKI for misses)
	UnitPerSec  = "/sec"
)

func pct(name, num, den, desc, group string) Def {
	return Def{Name: name, Expr: fmt.Sprintf("100 * %s / %s", num, den), Unit: UnitPercent,
		Description: desc, Group: group, Event: num, Max: 100}
}

func pti(name, ev, insn, desc, group string) Def {
	return Def{Name: name, Expr: fmt.Sprintf("1000 * %s / %s", ev, insn), Unit: UnitPTI,
		Description: desc, Group: group, Event: ev}
}

func perSec(name, ev, desc string) Def {
	return Def{Name: name, Expr: ev + " / (task-clock / 1e9)", Unit: UnitPerSec, Description: desc,
		Group: GroupDefault + "," + GroupSoftware, Event: ev}
}

// The tables below are functions, not variables: their formulas are built when a set is
// built, not at package init (which every launch of pmc pays).

// generic uses perf's generic names, which the kernel maps to each CPU's own codes.
func generic() []Def {
	return []Def{
		{Name: "ipc", Expr: "instructions / cycles", Unit: "insn per cycle", Event: "instructions",
			Description: "instructions completed per core cycle", Group: "default,ipc", Issue: "ipc"},
		{Name: "cpi", Expr: "cycles / instructions", Unit: "cycles per insn", Event: "instructions",
			Description: "core cycles spent per completed instruction (the inverse of IPC)", Group: "ipc", Issue: "cpi"},
		// No core clocks above 10 GHz: counters that read more (an emulator that opens a PMU it
		// does not model, such as QEMU's raspi0 with 74-606 "GHz") are flagged, not believed.
		{Name: "ghz", Expr: "cycles / task-clock", Unit: "GHz", Event: "cycles", Group: "default,ipc", Max: 10,
			Description: "average core clock while the workload ran on a CPU (cycles per nanosecond of task time)"},
		{Name: "cpus_utilized", Expr: "task-clock / duration_time", Unit: "CPUs utilized", Event: "task-clock",
			Group: "default,software", Description: "task time over wall-clock time: how many CPUs were busy on average"},
		perSec("context_switches_per_sec", "context-switches", "context switches per second of task time"),
		perSec("cpu_migrations_per_sec", "cpu-migrations", "moves to another CPU per second of task time"),
		perSec("page_faults_per_sec", "page-faults", "page faults per second of task time"),
		pct("l1d_miss_ratio", "L1-dcache-load-misses", "L1-dcache-loads",
			"share of level-1 data cache loads that missed", GroupCache),
		pti("l1d_mpki", "L1-dcache-load-misses", "instructions", "level-1 data cache load misses per thousand instructions", GroupCache),
		pti("l1i_mpki", "L1-icache-load-misses", "instructions", "level-1 instruction cache misses per thousand instructions", GroupCache),
		pct("llc_miss_ratio", "LLC-load-misses", "LLC-loads", "share of last-level cache loads that missed", GroupCache),
		pti("llc_mpki", "LLC-load-misses", "instructions", "last-level cache load misses per thousand instructions", GroupCache),
		pct("cache_miss_ratio", "cache-misses", "cache-references",
			"share of cache references that missed (the CPU decides which cache level these count)", GroupCache),
		pti("dtlb_mpki", "dTLB-load-misses", "instructions", "data TLB load misses per thousand instructions", GroupTLB),
		// The Cortex-A7 seed's dTLB miss ratio. Its formula uses perf's generic names, so it is
		// defined wherever they are; what it means depends on what the CPU's driver maps
		// cache-references to: the L1 data cache access (0x04) on Armv7 and Armv8 cores, where
		// dTLB-load-misses is the L1 data TLB refill (0x05), so it is data TLB refills per L1D
		// access; on x86 a last-level cache reference.
		pct("dtlb_miss_ratio", "dTLB-load-misses", "cache-references",
			"data TLB misses per cache reference (the Cortex-A7 seed's dTLB miss ratio: per L1 data cache access on Arm cores, where cache-references counts those)", GroupTLB),
		pti("itlb_mpki", "iTLB-load-misses", "instructions", "instruction TLB misses per thousand instructions", GroupTLB),
		pct("branch_miss_ratio", "branch-misses", "branches", "share of branches the predictor got wrong", "default,branch"),
		pti("branch_mpki", "branch-misses", "instructions", "mispredicted branches per thousand instructions", GroupBranch),
		pti("branch_rate", "branches", "instructions", "branches per thousand instructions", GroupBranch),
		pct("frontend_stall_pct", "stalled-cycles-frontend", "cycles",
			"share of cycles in which the front end delivered no instruction", GroupStall),
		pct("backend_stall_pct", "stalled-cycles-backend", "cycles",
			"share of cycles in which the back end could not accept work", GroupStall),
	}
}

// ARM1176 raw event codes (ARM1176JZF-S TRM, performance monitor event numbers; the same
// numbers as the kernel's armv6 PMU driver).
const (
	arm11ICacheMiss   = "r00" // instruction cache miss (fetch from a cacheable location missed)
	arm11IBufStall    = "r01" // cycle stalled: the instruction buffer had nothing to issue
	arm11DepStall     = "r02" // cycle stalled on a data dependency
	arm11IMicroTLB    = "r03" // instruction MicroTLB miss
	arm11DMicroTLB    = "r04" // data MicroTLB miss
	arm11Branch       = "r05" // branch instruction executed
	arm11Mispredict   = "r06" // branch mispredicted
	arm11Instructions = "r07" // instruction executed
	arm11DCCacheable  = "r09" // data cache access to a cacheable location (nonsequential)
	arm11DCMiss       = "r0B" // data cache miss
	arm11MainTLB      = "r0F" // main TLB miss
	arm11Cycles       = "cycles"
)

// arm1176 restates the generic metrics with raw codes and adds rpistat's report.
func arm1176() []Def {
	return []Def{
		{Name: "ipc", Expr: arm11Instructions + " / cycles", Unit: "insn per cycle", Event: arm11Instructions,
			Description: "instructions executed per core cycle", Group: "default,ipc", Issue: "ipc"},
		{Name: "cpi", Expr: "cycles / " + arm11Instructions, Unit: "cycles per insn", Event: arm11Instructions,
			Description: "core cycles spent per executed instruction", Group: "ipc,rpistat", Issue: "cpi"},
		pct("ibuf_stall_pct", arm11IBufStall, arm11Cycles,
			"share of cycles stalled because the instruction buffer was empty", "stall,rpistat"),
		pct("dep_stall_pct", arm11DepStall, arm11Cycles, "share of cycles stalled waiting on a data dependency", GroupStall),
		pct("l1d_miss_ratio", arm11DCMiss, arm11DCCacheable,
			"share of data cache accesses to cacheable memory that missed (rpistat's DC miss ratio)", "cache,rpistat"),
		pti("l1d_access_pti", arm11DCCacheable, arm11Instructions, "cacheable data cache accesses per thousand instructions", GroupCache),
		pti("l1d_mpki", arm11DCMiss, arm11Instructions, "data cache misses per thousand instructions", GroupCache),
		pti("l1i_mpki", arm11ICacheMiss, arm11Instructions, "instruction cache misses per thousand instructions", GroupCache),
		pti("dtlb_mpki", arm11DMicroTLB, arm11Instructions, "data MicroTLB misses per thousand instructions", "tlb,rpistat"),
		pti("itlb_mpki", arm11IMicroTLB, arm11Instructions, "instruction MicroTLB misses per thousand instructions", GroupTLB),
		pti("main_tlb_mpki", arm11MainTLB, arm11Instructions,
			"main TLB misses (each one a page table walk) per thousand instructions", "tlb,rpistat"),
		pti("branch_rate", arm11Branch, arm11Instructions, "branches executed per thousand instructions", "branch,rpistat"),
		pti("branch_mpki", arm11Mispredict, arm11Instructions, "mispredicted branches per thousand instructions", GroupBranch),
		pct("branch_miss_ratio", arm11Mispredict, arm11Branch,
			"share of executed branches that were mispredicted", "default,branch,rpistat"),
	}
}

// arm1176Drop: generic metrics with no ARM1176 counterpart (the kernel maps no cache-references
// or last-level cache events there; the BCM2835's L2 serves the GPU).
var arm1176Drop = []string{"llc_miss_ratio", "llc_mpki", "cache_miss_ratio", "dtlb_miss_ratio"}

// armv8 adds Arm's attributable refill rates (the Armv8 seed's): refills of a cache per access
// to that cache. The operands are raw codes of common architectural events, the same on every
// Armv8 core (so they resolve on any machine, and match L1D_CACHE_REFILL & co. by encoding):
// 0x03 L1D_CACHE_REFILL, 0x04 L1D_CACHE, 0x17 L2D_CACHE_REFILL, 0x16 L2D_CACHE.
func armv8() []Def {
	return []Def{
		pct("l1d_refill_rate", "r03", "r04",
			"L1D_CACHE_REFILL per L1D_CACHE: L1 data cache refills per access (Arm's attributable refill rate)", GroupCache),
		pct("l2d_refill_rate", "r17", "r16",
			"L2D_CACHE_REFILL per L2D_CACHE: L2 cache refills per access (Arm's attributable refill rate)", GroupCache),
	}
}

// Builtin returns the built-in metrics for an architecture (ArchGeneric, ArchX86,
// ArchARMv7 and ArchARMv8 share perf's generic names; ArchARM1176 uses raw codes).
func Builtin(arch string) *Set {
	defs := generic()
	if arch == ArchARM1176 {
		defs = nil
		for _, d := range generic() {
			if !slices.Contains(arm1176Drop, d.Name) {
				defs = append(defs, d)
			}
		}
	}
	s, err := NewSet(defs...)
	if err != nil {
		panic("metrics: built-in generic metrics: " + err.Error()) // covered by TestBuiltin
	}
	var extra []Def
	switch arch {
	case ArchARM1176:
		extra = arm1176()
	case ArchARMv8:
		extra = armv8()
	}
	if s, err = s.Merge(extra...); err != nil {
		panic("metrics: built-in " + arch + " metrics: " + err.Error()) // covered by TestBuiltin
	}
	return s
}

// Architectures whose built-in metrics Elsewhere searches.
var archs = []string{ArchGeneric, ArchX86, ArchARMv7, ArchARMv8, ArchARM1176}

// Elsewhere lists the architectures whose built-in metrics have name as a metric or a
// group: where a name unknown on this CPU is known (none for a name no CPU has).
func Elsewhere(name string) []string {
	var out []string
	for _, a := range archs {
		s := Builtin(a)
		if _, err := s.Select(name); err == nil {
			if a == ArchGeneric {
				a = "generic"
			}
			out = append(out, a)
		}
	}
	return out
}

// SelectHere is Select for the metric flags of one CPU: a name only other CPUs' built-in
// metrics know is left out with a warning that says where it is defined, instead of
// refusing every metric; a name no CPU knows is still an error.
func (s *Set) SelectHere(names ...string) (selected, warnings []string, err error) {
	var known []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, err := s.Select(n); err == nil {
			known = append(known, n)
			continue
		}
		where := Elsewhere(n)
		if len(where) == 0 {
			_, err := s.Select(n) // the error that lists what exists
			return nil, nil, err
		}
		warnings = append(warnings, fmt.Sprintf("metric %s is not defined for this CPU (only for %s PMUs): left out", n, strings.Join(where, ", ")))
	}
	selected, err = s.Select(known...)
	return selected, warnings, err
}

package compare

import (
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// saved is a command read from a file, with one run counting these encodings.
func saved(label string, m *result.Machine, counts ...result.Count) Command {
	for i := range counts {
		counts[i].CPU, counts[i].Status, counts[i].Raw, counts[i].Scaled = -1, result.Counted, 1000, 1000
	}
	return Command{Label: label, Machine: m, Backend: "perf_event", Runs: []Run{{Counts: counts}}}
}

func enc(event, pmu string, typ uint32, config uint64, resolved string) result.Count {
	return result.Count{Event: event, Encoding: result.Encoding{PMU: pmu, Type: typ, Config: config, Raw: resolved}}
}

// TestDifferencesNormalized is the case: the same machine written by pmc.h (model
// name only, no PMU, no resolved names) and by pmc stat (identity, PMU, resolved names) is
// not two machines; a Cortex-A7 against a Cortex-A57 differs in CPU and in the cycles
// event (0xff on the A7's cycle counter, 0x11 on the A57), not in instructions (r8 on both),
// nor in a raw r03 that the A57 spells with its table name.
func TestDifferencesNormalized(t *testing.T) {
	self := saved("A", &result.Machine{Host: "vm", CPU: "AMD EPYC", Kernel: "Linux 6.18.0 #1 SMP x86_64"},
		enc("task-clock", "software", 1, 1, ""), enc("instructions", "", 0, 1, ""))
	stat := saved("B", &result.Machine{Host: "vm", CPU: "AMD EPYC", CPUID: "AuthenticAMD family 0x19 model 0x1 (AMD EPYC)",
		PMU: "none (no hardware PMU)", Kernel: "Linux 6.18.0 #1 SMP x86_64"},
		enc("task-clock", "software", 1, 1, "task-clock"), enc("instructions", "cpu", 0, 1, "instructions"))
	if d := differences([]Command{self, stat}); len(d) != 0 {
		t.Errorf("the same machine from pmc.h and pmc stat: differences %q, want none", d)
	}
	// On an Arm machine pmc stat also records what a generic event resolved to; pmc.h does
	// not: not knowing is not a difference.
	selfArm := saved("A", &result.Machine{CPUID: "Arm implementer 0x41 part 0xd07"},
		enc("instructions:u", "", 0, 1, ""), enc("cycles:u", "", 0, 0, ""))
	statArm := saved("B", &result.Machine{CPU: "Arm Cortex-A57 (Armv8-A)", CPUID: "Arm implementer 0x41 part 0xd07 (cpuinfo architecture 8)"},
		enc("instructions:u", "armv8_pmuv3", 0, 1, "instructions = r8 (INST_RETIRED)"), enc("cycles:u", "armv8_pmuv3", 0, 0, "cycles = r11 (CPU_CYCLES)"))
	if d := differences([]Command{selfArm, statArm}); len(d) != 0 {
		t.Errorf("the same Arm machine from pmc.h and pmc stat: differences %q, want none", d)
	}

	a7 := saved("A", &result.Machine{CPU: "Arm Cortex-A7 (ARMv7-A; Raspberry Pi 2)", CPUID: "Arm implementer 0x41 part 0xc07 (cpuinfo architecture 7)",
		PMU: "armv7_cortex_a7, 4 general counters + cycle counter"},
		enc("cycles", "armv7_cortex_a7", 0, 0, "cycles = rff (CPU_CYCLES_CCNT)"),
		enc("instructions", "armv7_cortex_a7", 0, 1, "instructions = r8 (INST_RETIRED)"),
		enc("r03", "armv7_cortex_a7", 4, 3, "r3"),
		enc("task-clock", "software", 1, 1, "task-clock"))
	a57 := saved("B", &result.Machine{CPU: "Arm Cortex-A57 (Armv8-A)", CPUID: "Arm implementer 0x41 part 0xd07 (cpuinfo architecture 8)",
		PMU: "armv8_pmuv3_0, 6 general counters + cycle counter"},
		enc("cycles", "armv8_pmuv3_0", 0, 0, "cycles = r11 (CPU_CYCLES)"),
		enc("instructions", "armv8_pmuv3_0", 0, 1, "instructions = r8 (INST_RETIRED)"),
		enc("r03", "armv8_pmuv3_0", 10, 3, "armv8_pmuv3_0/config=0x3/"),
		enc("task-clock", "software", 1, 1, "task-clock"))
	d := strings.Join(differences([]Command{a7, a57}), "\n")
	for _, want := range []string{"CPU differs", "PMU differs", "encoding of cycles differs"} {
		if !strings.Contains(d, want) {
			t.Errorf("A7 vs A57: no %q in:\n%s", want, d)
		}
	}
	for _, not := range []string{"instructions", "r03", "task-clock"} {
		if strings.Contains(d, "encoding of "+not) {
			t.Errorf("A7 vs A57: %s is the same event on both, but:\n%s", not, d)
		}
	}
}

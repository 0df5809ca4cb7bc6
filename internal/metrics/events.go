package metrics

import "strings"

// Event names perf defines itself. A metric may not take one of these names, so that
// "cycles" in an expression always means the event.
var (
	hardwareEvents = []string{
		"cycles", "cpu-cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-instructions", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"idle-cycles-frontend", "stalled-cycles-backend", "idle-cycles-backend", "ref-cycles",
	}
	softwareEvents = []string{
		"cpu-clock", "task-clock", "page-faults", "faults", "context-switches", "cs",
		"cpu-migrations", "migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	}
	// toolEvents are not counters: Compute takes their values from the Result (wall clock
	// and rusage) when they were not counted as events.
	toolEvents = []string{"duration_time", "user_time", "system_time"}
)

// IsEventName reports whether name is one of perf's generic hardware, software or tool
// event names (modifiers such as ":u" are ignored).
func IsEventName(name string) bool {
	b := baseName(name)
	return contains(hardwareEvents, b) || contains(softwareEvents, b) || contains(toolEvents, b)
}

// baseName strips perf modifiers: "cycles:u" -> "cycles".
func baseName(event string) string {
	if i := strings.IndexByte(event, ':'); i > 0 && !strings.Contains(event, "/") {
		return event[:i]
	}
	return event
}

// NeedsCounter reports whether the event occupies a PMU counter: false for software and
// tool events, which the kernel counts without one.
func NeedsCounter(event string) bool {
	b := baseName(event)
	return !contains(softwareEvents, b) && !contains(toolEvents, b)
}

// isToolEvent reports whether the event is a tool event (wall time, rusage).
func isToolEvent(event string) bool { return contains(toolEvents, baseName(event)) }

// IsCycles reports whether the event counts core cycles and so can live on a dedicated cycle
// counter: the generic names, and the raw cycle codes of the ARM PMUs (0xFF on ARMv6/ARMv7,
// 0x11 CPU_CYCLES on ARMv8). arch is as returned by Arch; "" accepts only the generic names.
func IsCycles(event, arch string) bool {
	b := strings.ToLower(baseName(event))
	if b == "cycles" || b == "cpu-cycles" {
		return true
	}
	switch arch {
	case ArchARM1176, ArchARMv7:
		return b == "rff" || b == "r0ff" || b == "r00ff"
	case ArchARMv8:
		return b == "r11" || b == "r011" || b == "r0011"
	}
	return false
}

// aliases: perf accepts two spellings of these events; a metric written with one matches a
// count opened with the other.
var aliases = map[string]string{
	"cpu-cycles": "cycles", "branch-instructions": "branches", "faults": "page-faults",
	"cs": "context-switches", "migrations": "cpu-migrations",
}

// sameEvent reports whether a counted event (as the user wrote it) is the metric operand,
// directly or through a perf alias; modifiers must be identical ("cycles:u" is not "cycles").
func sameEvent(counted, operand string) bool {
	if counted == operand {
		return true
	}
	return canonical(counted) == canonical(operand)
}

func canonical(ev string) string {
	b, mod := ev, ""
	if i := strings.IndexByte(ev, ':'); i > 0 && !strings.Contains(ev, "/") {
		b, mod = ev[:i], ev[i:]
	}
	if a, ok := aliases[b]; ok {
		b = a
	}
	return b + mod
}

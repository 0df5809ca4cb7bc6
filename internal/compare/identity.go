package compare

import (
	"fmt"
	"strings"

	"github.com/pmc-tools/pmc/internal/result"
)

// differences lists how the inputs differ beyond their commands: what the machines and the
// events really are, normalized, so that the same machine or event written by two writers
// (pmc stat and include/pmc.h, two CPUs' PMU names for one raw event) is not a difference.
// A fact one input does not record is no evidence of a difference and is not one.
func differences(cmds []Command) []string {
	if len(cmds) < 2 {
		return nil
	}
	var out []string
	// differ states what when the normalized keys of two inputs that both record it differ,
	// showing each input's own description.
	differ := func(what string, key, show func(Command) string) {
		first := ""
		for _, c := range cmds {
			k := key(c)
			if k == "" {
				continue
			}
			if first == "" {
				first = k
				continue
			}
			if k == first {
				continue
			}
			var parts []string
			for _, c := range cmds {
				v := show(c)
				if v == "" {
					v = "(not recorded)"
				}
				parts = append(parts, c.Label+": "+v)
			}
			out = append(out, what+" differs: "+strings.Join(parts, "; "))
			return
		}
	}
	machine := func(f func(*result.Machine) string) func(Command) string {
		return func(c Command) string {
			if c.Machine == nil {
				return ""
			}
			return f(c.Machine)
		}
	}
	differ("CPU", func(c Command) string { return cpuKey(c, cmds) }, machine(cpuText))
	pmu := machine(func(m *result.Machine) string { return m.PMU })
	differ("PMU", func(c Command) string { return strings.SplitN(pmu(c), ",", 2)[0] }, pmu)
	kernel := machine(func(m *result.Machine) string { return m.Kernel })
	differ("kernel", kernel, kernel)
	backend := func(c Command) string { return c.Backend }
	differ("backend", backend, backend)
	// What a simulator simulated is the machine the counts are of.
	simulated := func(c Command) string {
		if c.Simulation == nil {
			return ""
		}
		return c.Simulation.Simulator + " " + c.Simulation.CachesText()
	}
	differ("simulated machine", simulated, simulated)
	// An event opened with another encoding counts something else: say so per event.
	var order []string
	enc := make([]map[string]result.Encoding, len(cmds))
	for i, c := range cmds {
		enc[i] = map[string]result.Encoding{}
		for _, r := range c.Runs {
			for _, n := range r.Counts {
				if _, ok := enc[i][n.Event]; ok {
					continue
				}
				if i == 0 {
					order = append(order, n.Event)
				}
				enc[i][n.Event] = n.Encoding
			}
		}
	}
	for _, ev := range order {
		first := enc[0][ev]
		for i := 1; i < len(cmds); i++ {
			if e, ok := enc[i][ev]; ok && !sameEvent(first, e) {
				var parts []string
				for j, c := range cmds {
					v := "(not counted)"
					if e, ok := enc[j][ev]; ok {
						v = encodingString(e)
					}
					parts = append(parts, c.Label+": "+v)
				}
				out = append(out, "encoding of "+ev+" differs: "+strings.Join(parts, "; "))
				break
			}
		}
	}
	return out
}

// cpuKey is what identifies a command's CPU for comparison: its identity (vendor, family,
// model or the Arm implementer and part, without the description in parentheses) when
// every input that records a CPU records one, else the model name.
func cpuKey(c Command, all []Command) string {
	if c.Machine == nil {
		return ""
	}
	ids := true
	for _, o := range all {
		if o.Machine != nil && (o.Machine.CPUID != "" || o.Machine.CPU != "") && o.Machine.CPUID == "" {
			ids = false
		}
	}
	if ids {
		return strings.TrimSpace(trimRemark(c.Machine.CPUID))
	}
	return strings.TrimSpace(c.Machine.CPU)
}

// trimRemark removes a trailing remark in parentheses (none inside): "(cpuinfo architecture
// 8)", "(AMD EPYC)". Plain string code, not a regular expression: nothing compiled at package
// init, which every launch of pmc pays.
func trimRemark(s string) string {
	const space = " \t\n\r\f" // the expression's \s
	t := strings.TrimRight(s, space)
	i := strings.LastIndexByte(t, '(')
	if !strings.HasSuffix(t, ")") || i < 0 || strings.ContainsAny(t[i+1:len(t)-1], "()") {
		return s
	}
	return strings.TrimRight(t[:i], space)
}

// resolvedRaw finds the raw event a generic name became: "instructions = r8 (INST_RETIRED)"
// gives "8": hex digits after "= r" and before a character that is not a letter, digit or _.
func resolvedRaw(s string) (hex string, ok bool) {
	for off := 0; ; {
		i := strings.Index(s[off:], "= r")
		if i < 0 {
			return "", false
		}
		start := off + i + 3
		j := start
		for j < len(s) && isHex(s[j]) {
			j++
		}
		if j > start && (j == len(s) || !isWord(s[j])) {
			return s[start:j], true
		}
		off += i + 1
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isWord(c byte) bool {
	return isHex(c) || 'g' <= c && c <= 'z' || 'G' <= c && c <= 'Z' || c == '_'
}

// Event types of perf_event_attr (linux/perf_event.h) the normalization tells apart.
const (
	typeHardware   = 0
	typeSoftware   = 1
	typeTracepoint = 2
	typeHWCache    = 3
	typeRaw        = 4
	typeBreakpoint = 5
)

// eventKeys say what an event really counts, comparable across machines: generic is perf's
// generic identity of a generic hardware or cache event ("type 0 config 0x1"), resolved the
// raw event it counts on its CPU ("raw 0x8"): what a resolved generic name became, or a raw
// event's code (or a CPU table name's) on the core PMU, whatever the PMU's name and dynamic
// type number. Other events have a generic key only: a tracepoint its name (ids change with
// the kernel), another PMU its name and config.
func eventKeys(e result.Encoding) (generic, resolved string) {
	extra := ""
	if e.Config1 != 0 || e.Config2 != 0 {
		extra = fmt.Sprintf(" config1 %#x config2 %#x", e.Config1, e.Config2)
	}
	switch {
	case e.Type == typeHardware || e.Type == typeHWCache:
		generic = fmt.Sprintf("type %d config %#x", e.Type, e.Config) + extra
		if hex, ok := resolvedRaw(e.Raw); ok {
			resolved = "raw 0x" + strings.ToLower(strings.TrimLeft(hex, "0")) + extra
		}
		return generic, resolved
	case e.Type == typeRaw || e.Type > typeBreakpoint && corePMU(e.PMU):
		return "", fmt.Sprintf("raw %#x", e.Config) + extra
	case e.Type == typeTracepoint && e.Raw != "":
		return "tracepoint " + e.Raw, ""
	case e.Type > typeBreakpoint:
		return fmt.Sprintf("%s config %#x", e.PMU, e.Config) + extra, ""
	}
	return fmt.Sprintf("type %d config %#x", e.Type, e.Config) + extra, ""
}

// sameEvent says whether two encodings can be told to count different things: by the raw
// event both resolved to when both say, else by their generic identity when both have one.
// A generic event one writer resolved and the other did not (pmc.h records no resolution)
// is not a difference: not knowing is not evidence.
func sameEvent(a, b result.Encoding) bool {
	ga, ra := eventKeys(a)
	gb, rb := eventKeys(b)
	switch {
	case ra != "" && rb != "":
		return ra == rb
	case ga != "" && gb != "":
		return ga == gb
	}
	return true
}

// corePMU says whether a sysfs PMU name is a CPU's own PMU (whose raw codes are the CPU's
// events): x86's cpu (cpu_core, cpu_atom), Arm's armv7_cortex_a7, armv8_pmuv3_0, ...
func corePMU(name string) bool {
	return name == "cpu" || strings.HasPrefix(name, "cpu_") || strings.HasPrefix(name, "armv")
}

func encodingString(e result.Encoding) string {
	s := fmt.Sprintf("type %d config %#x", e.Type, e.Config)
	if e.Config1 != 0 || e.Config2 != 0 {
		s += fmt.Sprintf(" config1 %#x config2 %#x", e.Config1, e.Config2)
	}
	if e.PMU != "" {
		s += " (" + e.PMU + ")"
	}
	if e.Raw != "" {
		s += " = " + e.Raw
	}
	return s
}

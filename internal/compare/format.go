package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statfmt"
)

// Value formats a value for people: grouped digits for large counts, four significant
// digits for small ones.
func Value(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case a >= 1e4:
		return statfmt.GroupDigits(strconv.FormatFloat(v, 'f', 0, 64), ',')
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Title is the row's name with its unit and region: "wall time [s]", "loop: task-clock [msec]".
func (r Row) Title() string {
	t := r.Name
	if r.Region != "" {
		t = r.Region + ": " + t
	}
	if r.Unit == "" {
		return t
	}
	return t + " [" + r.Unit + "]"
}

// timeLike says whether less of the quantity means faster: times and clock or cycle counts.
func (r Row) timeLike() bool {
	switch {
	case r.Kind == KindTime && r.Unit == "s":
		return true
	case r.Kind == KindEvent:
		n := strings.SplitN(r.Name, ":", 2)[0]
		return r.Unit == "msec" || n == "cycles" || n == "cpu-cycles" || n == "duration_time"
	}
	return false
}

// RatioText words a ratio of means: "1.48x faster", "2.00x more", "same".
func (r Row) RatioText(d *Delta) string {
	if d == nil {
		return ""
	}
	less, more := "fewer", "more"
	switch {
	case r.timeLike():
		less, more = "faster", "slower"
	case r.Kind == KindMetric:
		less, more = "lower", "higher"
	case r.Kind == KindTime:
		less, more = "smaller", "larger"
	}
	switch {
	case d.Ratio == 1:
		return "same"
	case d.Ratio == 0:
		return "none"
	case d.Ratio < 1:
		return fmt.Sprintf("%.2fx %s", 1/d.Ratio, less)
	}
	return fmt.Sprintf("%.2fx %s", d.Ratio, more)
}

// Pct formats a signed percentage.
func Pct(v float64) string { return fmt.Sprintf("%+.1f%%", v) }

// CIText is the interval of a delta, "[-33.5%, -30.7%]", "too few runs" when the runs
// cannot bound it, or "" without a test.
func CIText(d *Delta) string {
	if d == nil || !d.Tested {
		return ""
	}
	lo, hi, ok := d.Interval()
	if !ok {
		return "too few runs"
	}
	return "[" + Pct(lo) + ", " + Pct(hi) + "]"
}

// Verdict is "significant", "not significant", or why there is no test.
func Verdict(d *Delta) string {
	switch {
	case d == nil:
		return ""
	case !d.Tested:
		return "untested (<2 runs)"
	case d.CILowPct == nil:
		return "undecided (more runs)"
	case d.Significant:
		return "significant"
	}
	return "not significant"
}

// MeanText is "mean ± sd", or the cell's status when it has no value.
func (c Cell) MeanText() string {
	if c.Stats.N == 0 {
		return "<" + strings.ReplaceAll(c.Status, "-", " ") + ">"
	}
	if c.Stats.N == 1 {
		return Value(c.Stats.Mean)
	}
	return Value(c.Stats.Mean) + " ± " + Value(c.Stats.Stddev)
}

// RangeText is "min … max".
func (c Cell) RangeText() string {
	if c.Stats.N < 2 {
		return ""
	}
	return Value(c.Stats.Min) + " … " + Value(c.Stats.Max)
}

// Flags are the cell's remarks: multiplexing, operands not measured together, outliers,
// plausibility warnings.
func (c Cell) Flags() []string {
	var out []string
	if c.Simulated {
		out = append(out, "SIMULATED")
	}
	if c.RunningPct > 0 && c.RunningPct < 99.995 {
		out = append(out, fmt.Sprintf("counted %.1f%% of the time, scaled", c.RunningPct))
	}
	if c.Together != nil && !*c.Together && !strings.Contains(c.Warning, "not measured together") {
		out = append(out, "operands not measured together")
	}
	if len(c.Stats.Outliers) > 0 {
		var s []string
		for _, o := range c.Stats.Outliers {
			s = append(s, strconv.Itoa(o))
		}
		out = append(out, "outlier runs "+strings.Join(s, ","))
	}
	if c.Warning != "" {
		out = append(out, c.Warning)
	}
	return out
}

// MachineText describes a machine in one line: CPU (identity); kernel; host name. "" when
// nothing is known.
func MachineText(m *result.Machine) string {
	if m == nil {
		return ""
	}
	var parts []string
	if cpu := cpuText(m); cpu != "" {
		parts = append(parts, cpu)
	}
	for _, s := range []string{m.Kernel, m.Host} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

func cpuText(m *result.Machine) string {
	switch {
	case m == nil:
		return ""
	case m.CPUID != "" && m.CPU != "" && !strings.Contains(m.CPUID, m.CPU):
		return m.CPU + " (" + m.CPUID + ")"
	case m.CPUID != "":
		return m.CPUID
	}
	return m.CPU
}

// Header is the comparison's description, one line each: what ran and how, the commands,
// the hosts, how inputs differ, failed runs and notes.
func (c *Comparison) Header() []string {
	var out []string
	how := fmt.Sprintf("pmc compare: %d commands", len(c.Commands))
	sim := ""
	if c.Simulated {
		sim = ": SIMULATED counts (a simulator's, not hardware counters)"
	}
	if c.Source == "saved" {
		how = fmt.Sprintf("pmc compare: %d saved results", len(c.Commands))
	} else {
		order := "interleaved (A B A B ...)"
		if !c.Interleaved {
			order = "each command's runs in a block"
		}
		how += ", " + order
		if c.Warmup > 0 {
			how += fmt.Sprintf(", %d warm-up run(s) each", c.Warmup)
		}
	}
	out = append(out, how+sim)
	sameHost := true
	for _, cmd := range c.Commands {
		line := "  " + cmd.Label + ": " + strings.Join(cmd.Command, " ")
		if cmd.File != "" {
			line = "  " + cmd.Label + ": " + cmd.File
			if len(cmd.Command) > 0 {
				line += " (" + strings.Join(cmd.Command, " ") + ")"
			}
		}
		switch {
		case cmd.SelfMeasured && cmd.Region != "":
			line += ", one region of include/pmc.h"
		case cmd.SelfMeasured:
			line += fmt.Sprintf(", %d regions (include/pmc.h), compared region by region", len(cmd.Runs))
		default:
			line += fmt.Sprintf(", %d run(s)", len(cmd.Runs))
		}
		if cmd.Simulated() {
			s := cmd.Simulation.String()
			if s == "" {
				s = "SIMULATED (" + strings.TrimPrefix(cmd.Backend, result.SimulatedPrefix) + ")"
			}
			line += "; " + s
		}
		out = append(out, line)
		sameHost = sameHost && MachineText(cmd.Machine) == MachineText(c.Commands[0].Machine)
	}
	if len(c.Commands) > 0 && sameHost {
		if m := MachineText(c.Commands[0].Machine); m != "" && c.Simulated {
			out = append(out, "  machine that ran the simulation: "+m)
		} else if m != "" {
			out = append(out, "  machine: "+m)
		}
	} else {
		for _, cmd := range c.Commands {
			m := MachineText(cmd.Machine)
			if m == "" {
				m = "not recorded"
			}
			out = append(out, "  "+cmd.Label+" machine: "+m)
		}
	}
	for _, d := range c.Differences {
		out = append(out, "  "+d)
	}
	for _, cmd := range c.Commands {
		if cmd.Failed == 0 {
			continue
		}
		var runs []string
		for _, r := range cmd.Runs {
			switch {
			case r.TimedOut:
				runs = append(runs, fmt.Sprintf("run %d timed out after %v", r.Index, time.Duration(c.TimeoutSec*float64(time.Second))))
			case r.Failed():
				s := fmt.Sprintf("run %d exit %d", r.Index, r.ExitStatus)
				if r.Signal != "" {
					s += " (" + r.Signal + ")"
				}
				runs = append(runs, s)
			}
		}
		out = append(out, fmt.Sprintf("  %s: %d of %d runs failed, left out of the statistics: %s", cmd.Label, cmd.Failed, len(cmd.Runs), strings.Join(runs, ", ")))
	}
	if c.Interrupted {
		n, cut := 0, ""
		for _, cmd := range c.Commands {
			for _, r := range cmd.Runs {
				if r.Interrupted {
					cut = fmt.Sprintf("; %s's run %d, cut short, is left out", cmd.Label, r.Index)
				} else {
					n++
				}
			}
		}
		out = append(out, fmt.Sprintf("  INTERRUPTED (Ctrl-C): the %d run(s) measured until then%s", n, cut))
	}
	if len(c.Commands) > 1 {
		out = append(out, fmt.Sprintf("  change vs %s: ratio of the means with its %g%% confidence interval by Fieller's method (unequal variances; never below -100%% for a time or a count); outliers by Tukey's 1.5 IQR fences", c.Commands[0].Label, 100*c.Confidence))
	}
	for _, n := range c.Notes {
		out = append(out, "  note: "+n)
	}
	return out
}

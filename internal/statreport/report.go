package statreport

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statfmt"

	"github.com/pmc-tools/pmc/internal/metrics"
)

// Machine is what the report header says about the computer the counts come from.
type Machine struct {
	Host       string
	Kernel     string // as uname -srvm prints it
	Date       time.Time
	Processors int
	CPU        string // model and identity
	PMU        string // core PMU and its counters
}

// Report is everything a report file is written from.
type Report struct {
	Machine Machine
	Result  *result.Stat
	// Set defines the metrics of Result.Metrics (groups, descriptions); nil puts them all
	// under "Other".
	Set *metrics.Set
	// Planned is the event list the co-scheduling planner chose, "" when the user's -e did.
	Planned string
	// Notes are extra lines for the notes section, e.g. the planner's warnings.
	Notes []string
	// Events names events the table lists by number: "r07" -> "EXEC_INSTR: ...".
	Events map[string]string
	// Tip ends the notes: what to do about them, e.g. the command that measures the operands
	// together. Empty: none.
	Tip string
}

// sections order the metric groups of the report; a metric goes to the first one it is in.
var sections = []struct{ group, title string }{
	{metrics.GroupIPC, "Instructions and cycles"},
	{metrics.GroupCache, "Caches"},
	{metrics.GroupTLB, "TLB"},
	{metrics.GroupBranch, "Branches"},
	{metrics.GroupStall, "Stalls"},
	{metrics.GroupSoftware, "Software events"},
}

const rule = "==============================================================================="

// Write writes the report.
func Write(w io.Writer, r Report) error {
	var b bytes.Buffer
	res := r.Result
	m := r.Machine
	b.WriteString(rule + "\n pmc stat report\n" + rule + "\n")
	field := func(name, value string) {
		if value == "" {
			value = "unknown"
		}
		fmt.Fprintf(&b, "  %-22s%s\n", name+":", value)
	}
	field("Command", target(res))
	field("Date", m.Date.Format("Mon Jan _2 15:04:05 2006 MST"))
	field("Host", m.Host)
	field("Kernel", m.Kernel)
	field("CPU", m.CPU)
	field("PMU", m.PMU)
	field("Number of processors", fmt.Sprint(m.Processors))

	notes := &noteList{}
	b.WriteString("\nRun\n")
	field("Exit status", exitText(res, notes))
	field("Elapsed time", fmt.Sprintf("%.9f s", res.ElapsedSec))
	if res.Mode == "launch" || res.Mode == "" {
		field("User time", fmt.Sprintf("%.9f s", res.UserSec))
		field("System time", fmt.Sprintf("%.9f s", res.SysSec))
	}
	if n := res.RunsDone(); n > 1 || res.Interrupted {
		text := fmt.Sprintf("%d (counts, times and metrics are means over the runs)", n)
		if res.Interrupted && res.Repeat > n {
			text = fmt.Sprintf("%d of %d asked for: interrupted (counts, times and metrics are means over the runs made)", n, res.Repeat)
		}
		field("Runs", text)
	}
	if res.Simulated() {
		field("Counted by", "SIMULATED by "+res.Simulator()+" (valgrind): every count below is simulated, not read from hardware counters")
	} else {
		field("Counted by", res.Backend)
	}
	if r.Planned != "" {
		field("Events planned", r.Planned)
	}
	if !res.Scaled {
		field("Scaling", "off (--no-scale): scaled counts equal raw counts")
	}
	for _, n := range r.Notes {
		notes.add(n)
	}

	writeEvents(&b, res, r.Events, notes)
	writeMetrics(&b, r, notes)
	if res.RunsDone() > 1 {
		b.WriteString("\n")
		statfmt.Spread(&b, res)
	}

	b.WriteString("\nNotes\n")
	if len(notes.lines) == 0 {
		b.WriteString("  none: every metric was measured together and is plausible\n")
	}
	for i, n := range notes.lines {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, n)
	}
	if r.Tip != "" && len(notes.lines) > 0 {
		fmt.Fprintf(&b, "\n  Tip: %s\n", r.Tip)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// noteList numbers the notes as they are found.
type noteList struct{ lines []string }

func (n *noteList) add(s string) int {
	for i, l := range n.lines {
		if l == s {
			return i + 1
		}
	}
	n.lines = append(n.lines, s)
	return len(n.lines)
}

// target is what was counted: the command line, the processes or the CPUs.
func target(res *result.Stat) string {
	switch res.Mode {
	case "attach":
		pids := make([]string, len(res.PIDs))
		for i, p := range res.PIDs {
			pids[i] = fmt.Sprint(p)
		}
		return "process id " + strings.Join(pids, ",")
	case "system":
		if len(res.CPUs) > 0 {
			cpus := make([]string, len(res.CPUs))
			for i, c := range res.CPUs {
				cpus[i] = fmt.Sprint(c)
			}
			return "system wide, CPUs " + strings.Join(cpus, ",")
		}
		return "system wide"
	}
	return strings.Join(res.Command, " ")
}

// exitText is the exit status line; an interrupted or failed workload also gets a note.
func exitText(res *result.Stat, notes *noteList) string {
	sig := ""
	if len(res.Runs) > 0 {
		sig = res.Runs[len(res.Runs)-1].Signal
	}
	switch {
	case sig != "":
		notes.add(fmt.Sprintf("the command was ended by %s (exit status %d): the counts cover it up to that point", sig, res.ExitStatus))
		return fmt.Sprintf("%d (%s)", res.ExitStatus, sig)
	case res.ExitStatus != 0:
		notes.add(fmt.Sprintf("the command exited with status %d", res.ExitStatus))
	}
	return fmt.Sprint(res.ExitStatus)
}

// writeEvents is the table of counts.
func writeEvents(b *bytes.Buffer, res *result.Stat, names map[string]string, notes *noteList) {
	b.WriteString("\nPerformance events\n")
	if res.Simulated() {
		b.WriteString("  SIMULATED by " + res.Simulator() + ": each count is the simulator's, marked (SIMULATED)\n")
	}
	b.WriteString("  raw     = the count as read from the counter\n")
	b.WriteString("  scaled  = raw * time enabled / time running: the estimate for the whole run\n")
	b.WriteString("  running = share of the enabled time the event was on a counter\n")
	b.WriteString("  group   = events of one group were always counted at the same time\n")
	summary := result.Merged(res.Summary) // the planner's copies of an event once, as rpistat prints it
	bounds := false
	for _, s := range summary {
		bounds = bounds || s.Bound != nil
	}
	if bounds {
		b.WriteString("  ±95%    = how far a multiplexed scaled count may be from the true count, 95% bound\n" +
			"            from reads every 10 ms (? when the run was too short to tell)\n")
	}
	b.WriteString("\n")
	width := len("Event")
	for _, s := range summary {
		if n := len(eventLabel(res, s)); n > width {
			width = n
		}
	}
	head := fmt.Sprintf("  %5s  %-*s  %20s  %20s  %8s", "Group", width, "Event", "Raw count", "Scaled count", "Running")
	if bounds {
		head += fmt.Sprintf("  %8s", "±95%")
	}
	b.WriteString(head + "\n")
	for _, s := range summary {
		raw, scaled, running := "", "", ""
		switch s.Status {
		case result.Counted:
			raw, scaled = countText(s.RawMean, s.Unit, s.UnitScale), countText(s.Mean, s.Unit, s.UnitScale)
			running = fmt.Sprintf("%.2f%%", s.RunningPct())
		case result.NotCounted:
			raw, running = "<not counted>", "0.00%"
			notes.add(fmt.Sprintf("%s was not counted: it never got a counter (its group did not fit, or it was never scheduled)", eventLabel(res, s)))
		default:
			raw = "<not supported>"
			why := s.Error
			if why == "" {
				why = "the kernel refused it"
			}
			notes.add(fmt.Sprintf("%s is not supported: %s", eventLabel(res, s), why))
		}
		group := strconv.Itoa(s.Group)
		if len(s.Groups) > 1 {
			group = "*"
			notes.add(fmt.Sprintf("%s was counted in groups %s, beside each ratio's other operand; its row combines them", eventLabel(res, s), joinInts(s.Groups)))
		}
		line := fmt.Sprintf("  %5s  %-*s  %20s  %20s  %8s", group, width, eventLabel(res, s), raw, scaled, running)
		if bounds && s.Status == result.Counted {
			line += fmt.Sprintf("  %8s", statfmt.BoundText(s.Bound))
		}
		if res.Simulated() && s.Status == result.Counted {
			line += "  (SIMULATED)"
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	var named []string
	for _, s := range res.Summary {
		if n, ok := names[s.Event]; ok && !slices.Contains(named, s.Event) {
			named = append(named, s.Event)
			if len(named) == 1 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(b, "  %-*s  %s\n", width+7, s.Event, n)
		}
	}
}

func eventLabel(res *result.Stat, s result.Summary) string {
	if s.CPU >= 0 {
		label, _ := res.CPULabel(s.CPU)
		return fmt.Sprintf("%s (%s)", s.Event, label)
	}
	return s.Event
}

// countText prints a count grouped by thousands, or a value with a unit (a clock in msec,
// a sysfs-scaled event) with two decimals.
func countText(v float64, unit string, scale float64) string {
	if unit != "" {
		return group(fmt.Sprintf("%.2f", result.ToUnit(v, unit, scale))) + " " + unit
	}
	return group(fmt.Sprintf("%.0f", v))
}

// group separates thousands with commas, as the report prints every number.
func group(s string) string { return statfmt.GroupDigits(s, ',') }

// writeMetrics prints the metrics by section; every metric says whether its operands were
// measured together, and a warning points to its note.
func writeMetrics(b *bytes.Buffer, r Report, notes *noteList) {
	b.WriteString("\nMetrics\n")
	b.WriteString("  PTI      = per thousand instructions\n")
	b.WriteString("  together = every operand was counted at the same time (one group, or nothing multiplexed)\n")
	b.WriteString("  NOT together = operands were counted at different times: the value mixes different spans\n")
	ms := r.Result.Metrics
	if len(ms) == 0 {
		b.WriteString("\n  none: no metric applies to the events counted\n")
		return
	}
	byTitle := map[string][]result.Metric{}
	var titles []string
	for _, m := range ms {
		t := sectionOf(r.Set, m.Name)
		if _, ok := byTitle[t]; !ok {
			titles = append(titles, t)
		}
		byTitle[t] = append(byTitle[t], m)
	}
	var ordered []string
	for _, s := range sections {
		if _, ok := byTitle[s.title]; ok {
			ordered = append(ordered, s.title)
		}
	}
	for _, t := range titles {
		if !slices.Contains(ordered, t) {
			ordered = append(ordered, t)
		}
	}
	// rpistat's order: CPI and IPC first.
	first := map[string]int{"cpi": 0, "ipc": 1}
	rank := func(m result.Metric) int {
		if r, ok := first[m.Name]; ok {
			return r
		}
		return len(first)
	}
	for _, t := range ordered {
		sort.SliceStable(byTitle[t], func(i, j int) bool { return rank(byTitle[t][i]) < rank(byTitle[t][j]) })
		fmt.Fprintf(b, "\n  %s\n", t)
		for _, m := range byTitle[t] {
			writeMetric(b, r.Result, r.Set, m, notes)
		}
	}
}

func writeMetric(b *bytes.Buffer, res *result.Stat, set *metrics.Set, m result.Metric, notes *noteList) {
	name := m.Name
	if m.CPU >= 0 {
		label, _ := res.CPULabel(m.CPU)
		name = fmt.Sprintf("%s (%s)", m.Name, label)
	}
	value, status := "undefined", "undefined"
	if m.Valid {
		value = statfmt.MetricValue(m.Value)
		status = "together"
		if !m.Together {
			status = "NOT together"
		}
	}
	unit := m.Unit
	if unit == "" {
		unit = "-"
	}
	line := fmt.Sprintf("    %-24s %16s  %-18s %-13s", name, value, unit, status)
	if bt := statfmt.BoundText(m.Bound); bt != "" && m.Valid {
		line += " " + bt
	}
	if m.Warning != "" {
		line += fmt.Sprintf(" !! note %d", notes.add(m.Name+": "+m.Warning))
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
	if set != nil {
		if d, ok := set.Def(m.Name); ok && d.Description != "" {
			fmt.Fprintf(b, "      %s\n", d.Description)
		}
	}
}

// metricValue prints a metric with three decimals, grouped by thousands.

// sectionOf is the title of the report section a metric belongs to.
func sectionOf(set *metrics.Set, name string) string {
	if set == nil {
		return "Other"
	}
	d, ok := set.Def(name)
	if !ok {
		return "Other"
	}
	gs := d.Groups()
	for _, s := range sections {
		if slices.Contains(gs, s.group) {
			return s.title
		}
	}
	for _, g := range gs {
		if g != metrics.GroupDefault && g != metrics.GroupRpistat {
			return "Group " + g
		}
	}
	return "Other"
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

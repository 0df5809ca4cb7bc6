package listing

import (
	"fmt"
	"io"
	"strings"
)

var sectionTitles = []struct{ kind, title string }{
	{"software", "Software events"},
	{"hardware", "Hardware events (generic perf names; = the raw event on this CPU)"},
	{"cache", "Hardware cache events (generic perf names)"},
	{"pmu", "PMU events (sysfs)"},
	{"breakpoint", "Breakpoints"},
	{"tracepoint", "Tracepoints"},
	{"table", "Events of table %s"},
	{"extra", "Events from --event-file"},
}

func writeListText(w io.Writer, l *Listing, long bool) error {
	fmt.Fprintf(w, "CPU:      %s\n", l.CPU)
	if l.Table != "" {
		fmt.Fprintf(w, "Table:    %s (%s)\n", l.Table, l.TableTitle)
	} else {
		fmt.Fprintf(w, "Table:    none for this CPU (pick one with --cpu; pmc list --cpu help)\n")
	}
	if l.Counters != "" {
		fmt.Fprintf(w, "Counters: %s\n", l.Counters)
	}
	if l.Note != "" {
		fmt.Fprintf(w, "Note:     %s\n", l.Note)
	}
	if l.Browsed {
		fmt.Fprintf(w, "Browsing: %s's table, not this machine's CPU: nothing here is counted on this machine\n", l.Table)
	}
	if l.Browsed {
		// this machine's PMU says nothing about the browsed CPU
	} else if l.CorePMU != "" {
		fmt.Fprintf(w, "Core PMU: %s\n", l.CorePMU)
	} else {
		fmt.Fprintf(w, "Core PMU: none in /sys/bus/event_source/devices: hardware events cannot be counted here\n")
	}
	for _, s := range sectionTitles {
		var es []Entry
		for _, e := range l.Events {
			if e.Kind == s.kind {
				es = append(es, e)
			}
		}
		if len(es) == 0 {
			continue
		}
		title := s.title
		if strings.Contains(title, "%s") {
			title = fmt.Sprintf(title, l.Table)
		}
		common := commonStatus(es)
		if common == "countable" {
			fmt.Fprintf(w, "\n%s (%d):\n", title, len(es))
		} else {
			fmt.Fprintf(w, "\n%s (%d; %s unless marked):\n", title, len(es), common)
		}
		if s.kind == "pmu" || s.kind == "tracepoint" {
			es = sortedEntries(es)
		}
		for _, e := range es {
			writeEntry(w, e, common, long)
		}
	}
	if l.Tracepoints > 0 {
		fmt.Fprintf(w, "\nTracepoints: %d (list them with pmc list 'SUBSYSTEM:*' or pmc list '*:*')\n", l.Tracepoints)
	}
	return nil
}

// commonStatus is the status most entries of a section share (the first one on a tie).
func commonStatus(es []Entry) string {
	n := map[string]int{}
	best := ""
	for _, e := range es {
		n[e.Status]++
		if best == "" || n[e.Status] > n[best] {
			best = e.Status
		}
	}
	return best
}

func writeEntry(w io.Writer, e Entry, common string, long bool) {
	name := strings.Join(append([]string{e.Name}, e.Aliases...), " OR ")
	tag := e.Kind
	if e.Kind == "table" || e.Kind == "extra" {
		tag = e.Code
		if e.UMask != "" {
			tag += "/" + e.UMask
		}
	}
	if e.Status != common {
		tag += "; " + e.Status
	}
	line := fmt.Sprintf("  %-42s [%s]", name, tag)
	if e.MapsTo != "" {
		line += " = " + e.MapsTo
	}
	fmt.Fprintln(w, strings.TrimRight(line, " "))
	if !long {
		return
	}
	for _, text := range []string{e.Description, e.Caveat} {
		if text != "" {
			for _, l := range wrap(text, 88) {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
}

// wrap splits text into lines of at most width runes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	var cur []string
	n := 0
	for _, word := range strings.Fields(text) {
		if n > 0 && n+1+len(word) > width {
			lines = append(lines, strings.Join(cur, " "))
			cur, n = nil, 0
		}
		if n > 0 {
			n++
		}
		cur = append(cur, word)
		n += len(word)
	}
	if len(cur) > 0 {
		lines = append(lines, strings.Join(cur, " "))
	}
	return lines
}

package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Text writes the report as pmc doctor prints it: a verdict line, then one line per check
// (verdict, what, found) with its fix indented under it.
func (r *Report) Text(w io.Writer) error {
	var b strings.Builder
	if r.HardwareCounting {
		b.WriteString("pmc doctor: hardware counting works here\n")
	} else {
		b.WriteString("pmc doctor: hardware counting does NOT work here: " + r.Cause + "\n")
	}
	fmt.Fprintf(&b, "machine: %s; %s; CPU %s\n\n", r.Host, r.Kernel, r.CPU)
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "%-8s %-26s %s\n", c.Verdict, c.Title, c.Found)
		for _, f := range c.Fix {
			fmt.Fprintf(&b, "%-8s %-26s fix: %s\n", "", "", f)
		}
	}
	n := r.Problems()
	switch {
	case n == 0 && !r.HardwareCounting:
		b.WriteString("\nno check found the cause; see dmesg | grep -i -e pmu -e perf\n")
	case n > 0:
		fmt.Fprintf(&b, "\n%d problem(s)", n)
		switch {
		case !r.softwareCounting():
			b.WriteString("; until they are fixed, no event can be counted, software events included")
		case !r.HardwareCounting:
			b.WriteString("; until they are fixed, software events count and pmc stat --sim simulates caches and branches")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// softwareCounting: perf_event_open works for software events (the kernel.syscall check).
func (r *Report) softwareCounting() bool {
	for _, c := range r.Checks {
		if c.ID == "kernel.syscall" {
			return c.Verdict == OK
		}
	}
	return true
}

// JSON writes the report (schema pmc.doctor/v1, docs/json-schema.md).
func (r *Report) JSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Write writes the report as JSON (asJSON) or as text.
func (r *Report) Write(w io.Writer, asJSON bool) error {
	if asJSON {
		return r.JSON(w)
	}
	return r.Text(w)
}

package perfsuite

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Verdict compares pmc's run of a test with perf's on this machine.
type Verdict struct {
	Test      Test
	Perf, PMC Outcome
	Waits     string // the test's entry in Waiting
	Bad       string // why the suite fails because of this test; "" when it does not
	Note      string
}

// Judge decides what a test's two runs mean. A test that perf passes here must pass with
// pmc, unless it waits on listed work (and then it must not pass, so the list is kept
// true). A pass with an empty guard is no pass, except where perf's run found the same
// guards empty: then this machine cannot give the test anything to check (hardware events
// on a VM with no PMU), which is said, not hidden.
func Judge(t Test, perf, pmc Outcome, waits string) Verdict {
	v := Verdict{Test: t, Perf: perf, PMC: pmc, Waits: waits}
	perfPasses := perf.Status == Passed || perf.Status == Vacuous
	pmcPasses := pmc.Status == Passed || (pmc.Status == Vacuous && perf.Status == Vacuous && subset(pmc.Empty, perf.Empty))
	switch {
	case len(pmc.Missed) > 0:
		v.Bad = "pmc's run lacks the lines of parts that pass: " + strings.Join(pmc.Missed, "; ")
	case waits != "" && pmcPasses:
		v.Bad = "passes now: remove it from Waiting (it waited on " + waits + ")"
	case waits != "" && !perfPasses:
		v.Bad = "is in Waiting but perf does not pass it here: Waiting is for tests perf passes"
	case waits != "":
		v.Note = "expected to fail until " + waits
	case perfPasses && !pmcPasses && pmc.Status == Vacuous:
		v.Bad = "vacuous with pmc where perf's run was not: " + strings.Join(minus(pmc.Empty, perf.Empty), "; ")
	case perfPasses && !pmcPasses:
		v.Bad = "perf passes it here, pmc does not"
	case !perfPasses && pmcPasses:
		v.Note = "pmc passes where perf " + string(perf.Status) + "s"
	}
	if v.Note == "" && perf.Status == Vacuous && pmcPasses {
		v.Note = "vacuous here (perf too): " + strings.Join(perf.Empty, "; ")
	}
	return v
}

// WriteTable prints one line per test: perf's and pmc's status, each with its reason.
func WriteTable(w io.Writer, vs []Verdict) {
	fmt.Fprintf(w, "%-32s %-8s %-8s %s\n", "test", "perf", "pmc", "notes")
	for _, v := range vs {
		fmt.Fprintf(w, "%-32s %-8s %-8s %s\n", v.Test.Name, v.Perf.Status, v.PMC.Status, v.Notes())
	}
}

// Notes is the table's last column: the verdict, then each side's reasons.
func (v Verdict) Notes() string {
	var parts []string
	if v.Bad != "" {
		parts = append(parts, "BAD: "+v.Bad)
	}
	if v.Note != "" {
		parts = append(parts, v.Note)
	}
	for _, side := range []struct {
		who string
		o   Outcome
	}{{"perf", v.Perf}, {"pmc", v.PMC}} {
		if side.o.Why != "" {
			parts = append(parts, side.who+": "+side.o.Why)
		}
		if side.o.Status == Passed && len(side.o.Inner) > 0 {
			parts = append(parts, side.who+" skipped parts: "+strings.Join(side.o.Inner, " | "))
		}
		if side.o.Status == Vacuous && !strings.Contains(v.Note, "vacuous here") {
			parts = append(parts, side.who+" vacuous: "+strings.Join(side.o.Empty, "; "))
		}
	}
	return strings.Join(parts, "; ")
}

func subset(a, b []string) bool { return len(minus(a, b)) == 0 }

// minus is a without the elements of b.
func minus(a, b []string) []string {
	return slices.DeleteFunc(slices.Clone(a), func(x string) bool { return slices.Contains(b, x) })
}

package statfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/result"
)

// The files in testdata/perf/ are what perf stat 6.1 printed on the development VM (C.UTF-8
// locale, no hardware PMU). The cases in cases_test.go carry the same counts; pmc must
// print the same bytes.

func readPerf(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "perf", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTextMatchesPerf(t *testing.T) {
	for _, c := range []struct {
		file  string
		build func() *result.Stat
	}{
		{"default.txt", caseDefault},         // perf stat true
		{"unsupported.txt", caseUnsupported}, // perf stat -e task-clock,instructions true
		{"interval.txt", caseInterval},       // perf stat -e task-clock,page-faults -I 100 sleep 0.35
		{"percpu.txt", casePerCPU},           // perf stat -A -a -e cpu-clock sleep 0.1
	} {
		t.Run(c.file, func(t *testing.T) {
			got := renderText(t, c.build(), TextOptions{})
			if want := readPerf(t, c.file); !bytes.Equal(got, want) {
				t.Errorf("pmc and perf differ:\n%s", golden.Diff(string(want), string(got)))
			}
		})
	}
}

func TestCSVMatchesPerf(t *testing.T) {
	for _, c := range []struct {
		file  string
		sep   rune
		build func() *result.Stat
	}{
		{"default.x.csv", ',', caseCSVDefault},   // perf stat -x, -e task-clock,page-faults true
		{"interval.x.csv", ',', caseCSVInterval}, // perf stat -x, -e task-clock,page-faults -I 100 sleep 0.25
		{"percpu.x.csv", ';', caseCSVPerCPU},     // perf stat -x';' -A -a -e cpu-clock sleep 0.05
	} {
		t.Run(c.file, func(t *testing.T) {
			got := renderCSV(t, c.build(), CSVOptions{Sep: c.sep})
			if want := readPerf(t, c.file); !bytes.Equal(got, want) {
				t.Errorf("pmc and perf differ:\n%s", golden.Diff(string(want), string(got)))
			}
		})
	}
}

// With -r, perf 6.1 prints the LAST run's count (and its variation relative to that
// count) where pmc prints the mean over the runs (repeat5.verbose.txt shows the per-run
// values: perf's 0.49 msec is run 5's 488983 ns, the mean is 0.53). So for repeated runs
// the layout is compared with every digit masked: same widths, same columns, same words.
var digit = regexp.MustCompile(`[0-9]`)

func TestTextRepeatLayoutMatchesPerf(t *testing.T) {
	verbose := string(readPerf(t, "repeat5.verbose.txt"))
	// The report starts at the blank line before the title; perf -v --table adds the
	// per-run table in the footer, which pmc does not print.
	i := strings.Index(verbose, "\n Performance counter stats")
	if i < 0 {
		t.Fatal("no report in repeat5.verbose.txt")
	}
	var want []string
	inTable := false
	for _, l := range strings.SplitAfter(verbose[i:], "\n") {
		switch {
		case strings.Contains(l, "# Table of individual measurements:"):
			inTable = true
			continue
		case strings.Contains(l, "# Final result:"):
			inTable = false
			continue
		case inTable:
			continue
		}
		want = append(want, l)
	}
	got := renderText(t, caseRepeat5(), TextOptions{})
	w, g := digit.ReplaceAllString(strings.Join(want, ""), "d"), digit.ReplaceAllString(string(got), "d")
	if w != g {
		t.Errorf("layout differs from perf (digits masked):\n%s", golden.Diff(w, g))
	}
}

func TestCSVRepeatLayoutMatchesPerf(t *testing.T) {
	// perf stat -x, -r 3 -e task-clock,page-faults,instructions true
	number := regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)
	want := number.ReplaceAllString(string(readPerf(t, "repeat3.x.csv")), "N")
	got := number.ReplaceAllString(string(renderCSV(t, caseRepeat3(), CSVOptions{Sep: ','})), "N")
	if want != got {
		t.Errorf("columns differ from perf (numbers masked):\n%s", golden.Diff(want, got))
	}
}

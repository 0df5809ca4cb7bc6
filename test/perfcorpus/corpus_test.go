package perfcorpus

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/cli"
	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/testenv"
)

// known are the comparisons where pmc's rows differ from perf's, each with the reason. A
// comparison not listed must agree; one listed that agrees fails too (take it off the list).
var known = map[string]string{
	"perf.data.intel_pt-4.14.default":                       "perf decodes the Intel PT trace into two more events (cbr, psb); pmc skips the trace and reports the sampled event only",
	"perf.data.piped.intel_pt-4.14.default":                 "perf 6.1 fails in its Intel PT decoder on this pipe (bad event header size); pmc skips the AUXTRACE payloads and reports the 11 cycles samples",
	"perf.data.piped.intel_pt-4.14.stats":                   "perf 6.1 fails on this pipe as above; pmc counts its records",
	"perf.data.piped.header_features_aligned-6.12.stats":    "perf's --stats names the events of this pipe by their attribute (cycles:uH), its report and pmc by the pipe's EVENT_DESC (cycles:u); the counts are perf's",
	"perf.data.piped.header_feautres_group_desc-6.8.stats":  "as above (cycles:uH, instructions:uH in perf's --stats; :u in its report and pmc's); the counts are perf's",
	"perf.data.armv7.perf_3.14-3.8.header":                  "the file's CPUDESC is empty: perf stops reading features there (cpudesc (null), total memory 0, no cmdline, no pmu mappings); pmc skips that one and prints the others",
	"perf.data.piped.header_features_aligned-6.12.header":   "perf 6.1 prints no PMU_CAPS from a pipe; pmc prints its two PMUs' capabilities",
	"perf.data.piped.header_feautres_group_desc-6.8.header": "as above (PMU_CAPS of a pipe)",
}

// corpusCase is one line of testdata/cases.txt.
type corpusCase struct {
	file, view string
	args       []string
}

func readCases(t *testing.T) []corpusCase {
	t.Helper()
	b, err := os.ReadFile("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 2 {
			t.Fatalf("cases.txt: %q: want FILE VIEW [ARGS...]", l)
		}
		cases = append(cases, corpusCase{f[0], f[1], f[2:]})
	}
	return cases
}

// unpack writes testdata/data/FILE.gz to dir/FILE once.
func unpack(t *testing.T, dir, file string) string {
	t.Helper()
	out := filepath.Join(dir, file)
	if _, err := os.Stat(out); err == nil {
		return out
	}
	b, err := testenv.ReadGzip(filepath.Join("testdata", "data", file+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	tipLine      = regexp.MustCompile(`(?m)^# \(Tip: .*\)\n`)
	capturedLine = regexp.MustCompile(`(?m)^# captured on    : .*\n`)
	entryRow     = regexp.MustCompile(`^ +[0-9]+\.[0-9]+%`)
	columnRow    = regexp.MustCompile(`^# *(Children|Overhead|Samples|Period)  `)
)

// rows is rows.awk in Go: each event's header lines, its column header and its first 20
// entries, blanks squeezed.
func rows(text string) []string {
	var out []string
	n := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "# Samples:"):
			n = 0
			out = append(out, squeeze(l))
		case strings.HasPrefix(l, "# Event count") || strings.HasPrefix(l, "# Total Lost") || columnRow.MatchString(l):
			out = append(out, squeeze(l))
		case entryRow.MatchString(l):
			if n < 20 {
				out = append(out, squeeze(l))
			}
			n++
		}
	}
	return out
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestAgreesWithPerf runs pmc report on every case and compares its rows with perf's (its
// whole output for a text-* view, --stats and --header-only).
func TestAgreesWithPerf(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	var perfReads, pmcReads, compared, equal []string
	for _, c := range readCases(t) {
		name := c.file + "." + c.view
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "perf", name+".txt"))
			if err != nil {
				t.Fatalf("%v (regen.sh runs perf to write it)", err)
			}
			file := unpack(t, dir, c.file)
			args := append([]string{"report", "--stdio", "-i", file, "--symfs", empty, "--kallsyms", os.DevNull}, c.args...)
			var stdout, stderr bytes.Buffer
			code := cli.Run(args, &stdout, &stderr)
			if msg, ok := strings.CutPrefix(string(want), "# perf: no report: "); ok {
				// perf fails on this file: pmc must fail too, with one line that says why,
				// unless the known differences say why pmc is right to read it.
				why, isKnown := known[name]
				switch {
				case code == 0 && !isKnown:
					t.Errorf("perf fails (%s) but pmc reports:\n%s", strings.TrimSpace(msg), stdout.String())
				case code == 0:
					t.Logf("perf fails (%s), pmc reads it: %s", strings.TrimSpace(msg), why)
				case isKnown:
					t.Errorf("pmc fails as perf does now: take %q off the known differences", name)
				case strings.Contains(strings.TrimSpace(stderr.String()), "\n"):
					t.Errorf("pmc's error is more than one line:\n%s", stderr.String())
				}
				return
			}
			if c.view == "default" {
				perfReads = append(perfReads, c.file)
			}
			if code != 0 {
				t.Logf("pmc exits %d: %s", code, stderr.String())
			} else if c.view == "default" {
				pmcReads = append(pmcReads, c.file)
			}
			compared = append(compared, name)
			wr, gr := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n"), rows(stdout.String())
			if strings.HasPrefix(c.view, "text-") || c.view == "stats" || c.view == "header" {
				wr = strings.Split(string(want), "\n")
				gr = strings.Split(capturedLine.ReplaceAllString(tipLine.ReplaceAllString(stdout.String(), ""), ""), "\n")
			}
			same := code == 0 && slices.Equal(wr, gr)
			if same {
				equal = append(equal, name)
			}
			why, isKnown := known[name]
			switch {
			case !same && !isKnown:
				t.Errorf("rows differ from perf's:\n%s", golden.Diff(strings.Join(wr, "\n"), strings.Join(gr, "\n")))
			case same && isKnown:
				t.Errorf("rows now equal perf's: take %q (%s) off the known differences", name, why)
			case !same:
				t.Logf("known difference (%s):\n%s", why, golden.Diff(strings.Join(wr, "\n"), strings.Join(gr, "\n")))
			}
		})
	}
	t.Logf("perf reads %d files, pmc %d; top-20 rows equal perf's in %d of %d comparisons",
		len(perfReads), len(pmcReads), len(equal), len(compared))
}

package dwarfcorpus

import (
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

// A chain perf's libunwind ends differently from pmc, with why: each is allowed only where
// the file's case says so, and counted.
const (
	same          = "equal"
	perfStops     = "perf stops earlier (its libunwind gives up; pmc's CFI goes on)"
	perfGuesses   = "perf adds a guessed caller where pmc stops (no unwind table, or past the stack copy)"
	perfLastGuess = "perf ends in a caller made up of nothing ([unknown] or 0xffffffffffffffff) where pmc goes on"
)

// corpus is every recording and what is compared: the report views whose whole text must
// be perf's, those whose rows must be, and which chain differences perf's script may show.
var corpus = []struct {
	file         string
	exact, rows  []string
	allowed      []string
	minSameChain float64 // the share of samples whose chains must equal perf's
}{
	{file: "here.callchain.data", exact: []string{"no-children", "children", "caller"}, minSameChain: 1},
	{file: "here.pmc.data", exact: []string{"no-children", "children", "caller"}, minSameChain: 1},
	// dwarf,128: every chain ends in the C library's start-up, where the copy does; perf's
	// libunwind adds a caller at 0xffffffffffffffff there (a return address it could not
	// read, as 0, less one), which --children makes an entry of: rows without children.
	{file: "here.short.data", rows: []string{"no-children"}, allowed: []string{perfGuesses}},
	// ls and gzip from the distribution (no symbols, CFI only), the C library (its debug
	// file: inlined frames). perf's libunwind gives up at random: in this recording it
	// stops most chains at __libc_start_call_main (its verbose log shows it reading a
	// caller's frame at a wrong address, then dereferencing 3), where pmc goes on to the
	// program's _start as in every other chain; in another recording of the same command
	// 120 of 127 chains were equal. Every difference must still be one of perf stopping.
	{file: "here.ls.data", rows: []string{"no-children"}, allowed: []string{perfStops, perfGuesses, perfLastGuess}},
	// LBR call stacks (--call-graph lbr, Intel only), made up by mklbr: the chain is the
	// calls' sources under the last call's target, the entry the sampled address's.
	{file: "synth.lbr.data", exact: []string{"no-children", "children", "caller"}, minSameChain: 1},
}

var (
	tipLine  = regexp.MustCompile(`(?m)^# \(Tip: .*\)\n`)
	entryRow = regexp.MustCompile(`^ +[0-9]+\.[0-9]+%`)
)

// unpack writes testdata/data/FILE.gz and its archive to dir.
func unpack(t *testing.T, dir, file string) string {
	t.Helper()
	b, err := testenv.ReadGzip(filepath.Join("testdata", "data", file+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, file)
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(filepath.Join("testdata", "data", file+".pmcsym"))
	if os.IsNotExist(err) {
		return out // a recording of no binary (synth.lbr.data)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out+".pmcsym", a, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// run runs pmc with the recording's symbols from its archive alone.
func run(t *testing.T, empty string, args ...string) string {
	t.Helper()
	args = append(args, "--symfs", empty, "--kallsyms", os.DevNull)
	var out, errb bytes.Buffer
	if code := cli.Run(args, &out, &errb); code != 0 {
		t.Fatalf("pmc %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

var viewArgs = map[string][]string{
	"no-children": {"--no-children"},
	"children":    {"--children"},
	"caller":      {"--no-children", "-g", "caller"},
}

func rows(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "# Samples:") || strings.HasPrefix(l, "# Event count") || entryRow.MatchString(l) {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return out
}

// TestAgreesWithPerf reports perf's --call-graph dwarf recordings (and pmc's) from their
// archives alone and compares them with perf report's and perf script's output on the
// machine that recorded them: the views' text, and every sample's call chain.
func TestAgreesWithPerf(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	for _, c := range corpus {
		t.Run(c.file, func(t *testing.T) {
			file := unpack(t, dir, c.file)
			for _, view := range append(append([]string{}, c.exact...), c.rows...) {
				want, err := os.ReadFile(filepath.Join("testdata", "perf", c.file+"."+view+".txt"))
				if err != nil {
					t.Fatalf("%v (regen.sh runs perf to write it)", err)
				}
				got := tipLine.ReplaceAllString(run(t, empty, append([]string{"report", "--stdio", "-i", file}, viewArgs[view]...)...), "")
				if slices.Contains(c.exact, view) {
					if got != string(want) {
						t.Errorf("%s: pmc report differs from perf's:\n%s", view, golden.Diff(string(want), got))
					}
					continue
				}
				if w, g := rows(string(want)), rows(got); len(w) < 3 || !slices.Equal(w, g) {
					t.Errorf("%s: rows differ from perf's:\n%s", view, golden.Diff(strings.Join(w, "\n"), strings.Join(g, "\n")))
				}
			}
			want, err := os.ReadFile(filepath.Join("testdata", "perf", c.file+".script.txt"))
			if err != nil {
				t.Fatal(err)
			}
			ws, gs := samples(string(want)), samples(run(t, empty, "script", "-i", file))
			if len(ws) != len(gs) || len(ws) == 0 {
				t.Fatalf("perf script shows %d samples, pmc %d", len(ws), len(gs))
			}
			count := map[string]int{}
			for i := range ws {
				why := compareChains(ws[i], gs[i])
				count[why]++
				if why != same && !slices.Contains(c.allowed, why) {
					t.Errorf("sample %d: %s\nperf:\n%s\npmc:\n%s", i, why, strings.Join(ws[i], "\n"), strings.Join(gs[i], "\n"))
				}
			}
			t.Logf("%d samples: %v", len(ws), count)
			if got := float64(count[same]) / float64(len(ws)); got < c.minSameChain {
				t.Errorf("%d of %d chains equal perf's, want at least %.0f%%", count[same], len(ws), 100*c.minSameChain)
			}
		})
	}
}

// samples splits perf script's output into samples: the header line, then one line per
// frame (blanks squeezed).
func samples(out string) [][]string {
	var all [][]string
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var s []string
		for _, l := range strings.Split(block, "\n") {
			if l = strings.Join(strings.Fields(l), " "); l != "" {
				s = append(s, l)
			}
		}
		all = append(all, s)
	}
	return all
}

// made-up frames: what perf's libunwind reports when its guess reads nothing.
func madeUp(frame string) bool {
	return strings.HasSuffix(frame, "[unknown] ([unknown])") || strings.HasPrefix(frame, "ffffffffffffffff ")
}

// compareChains says how pmc's sample (header, frames) differs from perf's.
func compareChains(perf, pmc []string) string {
	switch {
	case slices.Equal(perf, pmc):
		return same
	case len(perf) == 0 || len(pmc) == 0 || perf[0] != pmc[0]:
		return "a different sample"
	case len(perf) < len(pmc) && slices.Equal(perf, pmc[:len(perf)]):
		return perfStops
	case len(perf) > len(pmc) && slices.Equal(perf[:len(pmc)], pmc):
		return perfGuesses
	case len(perf) <= len(pmc) && slices.Equal(perf[:len(perf)-1], pmc[:len(perf)-1]) && madeUp(perf[len(perf)-1]):
		return perfLastGuess
	}
	return "a different chain"
}

// TestGuestRecordings: pmc's --call-graph dwarf recordings from the arm64 and armv7 guests
// of test/qemu (frame-pointer-less callchain: .eh_frame on arm64; .debug_frame and the ARM
// exception tables on armv7) report on this machine from their archives alone exactly as
// pmc reported them in the guests, and every sample in leaf unwinds to leaf <- mid <- top
// <- main. perf 6.1 here unwinds neither (its libunwind is built for x86-64 alone).
func TestGuestRecordings(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	for _, g := range []string{"arm64", "armv7"} {
		t.Run(g, func(t *testing.T) {
			name := "guest." + g + ".data"
			b, err := testenv.ReadGzip(filepath.Join("testdata", "guest", name+".gz"))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, name)
			a, err := os.ReadFile(filepath.Join("testdata", "guest", name+".pmcsym"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file+".pmcsym", a, 0o644); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "guest", name+".report.txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := tipLine.ReplaceAllString(run(t, empty, "report", "--stdio", "--no-children", "-i", file), "")
			if got != string(want) {
				t.Errorf("pmc report here differs from pmc report in the guest:\n%s", golden.Diff(string(want), got))
			}
			leaf := 0
			for _, s := range samples(run(t, empty, "script", "-F", "comm,ip,sym", "-i", file)) {
				var syms []string
				for _, f := range s[1:] {
					syms = append(syms, strings.Fields(f)[1])
				}
				if len(syms) == 0 || syms[0] != "leaf" {
					continue
				}
				leaf++
				if len(syms) < 4 || strings.Join(syms[:4], " ") != "leaf mid top main" {
					t.Errorf("a sample in leaf with the chain %v", syms)
				}
			}
			if leaf < 50 {
				t.Errorf("%d samples in leaf, want the guest's 80", leaf)
			}
		})
	}
}

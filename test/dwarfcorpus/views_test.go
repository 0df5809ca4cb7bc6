package dwarfcorpus

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/pmc-tools/pmc/internal/golden"
)

// perfStacks folds perf script's samples (the goldens) into stacks, outermost frame first,
// each with its total period: perf's chains, as --folded and --pprof must give them.
func perfStacks(t *testing.T, script string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, s := range samples(script) {
		// "comm pid time: period event:"
		h := strings.Fields(s[0])
		if len(h) < 5 {
			t.Fatalf("perf script header %q", s[0])
		}
		period, err := strconv.ParseInt(h[3], 10, 64)
		if err != nil {
			t.Fatalf("perf script header %q: %v", s[0], err)
		}
		var frames []string
		for _, f := range slices.Backward(s[1:]) {
			sym := strings.Fields(f)[1]
			if i := strings.LastIndex(sym, "+0x"); i > 0 {
				sym = sym[:i]
			}
			frames = append(frames, sym)
		}
		out[strings.Join(frames, ";")] += period
	}
	return out
}

// childrenRows are a report's entries of the children view as "PERCENT DSO SYMBOL" (perf's
// Children column; pmc diff's Baseline column of its children section), "(inlined)" dropped.
func childrenRows(text string, cols int) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !entryRow.MatchString(l) {
			continue
		}
		f := strings.Fields(strings.TrimSuffix(l, " (inlined)"))
		if len(f) < cols {
			continue
		}
		out = append(out, f[0]+" "+strings.Join(f[len(f)-3:], " "))
	}
	slices.Sort(out)
	return out
}

// TestOtherViewsAgreeWithPerf: the other writers of a report (--folded, --pprof, diff -g)
// get the same unwound chains: on the recordings whose chains all equal perf's, --folded's
// and --pprof's stacks and periods are perf script's, and diff -g's children entries carry
// perf report --children's percentages.
func TestOtherViewsAgreeWithPerf(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	for _, c := range corpus {
		if c.minSameChain < 1 {
			continue // chains that differ from perf's: TestAgreesWithPerf counts them
		}
		t.Run(c.file, func(t *testing.T) {
			file := unpack(t, dir, c.file)
			script, err := os.ReadFile(filepath.Join("testdata", "perf", c.file+".script.txt"))
			if err != nil {
				t.Fatal(err)
			}
			want := perfStacks(t, string(script))
			symbolic := !strings.Contains(string(script), "[unknown]")

			// --folded: "comm;outermost;...;leaf period"
			got := map[string]int64{}
			for _, l := range strings.Split(strings.TrimSpace(run(t, empty, "report", "--folded", "-i", file)), "\n") {
				i := strings.LastIndexByte(l, ' ')
				n, err := strconv.ParseInt(l[i+1:], 10, 64)
				if i < 0 || err != nil {
					t.Fatalf("--folded line %q", l)
				}
				_, stack, _ := strings.Cut(l[:i], ";")
				got[stack] += n
			}
			if symbolic && !maps.Equal(got, want) {
				t.Errorf("--folded stacks differ from perf script's:\nperf: %v\npmc:  %v", want, got)
			}
			if !symbolic { // addresses: pmc folds them as [dso]; compare shapes and periods
				if fmt.Sprint(depths(got)) != fmt.Sprint(depths(want)) {
					t.Errorf("--folded depths differ from perf script's:\nperf: %v\npmc:  %v", depths(want), depths(got))
				}
			}

			// --pprof: each sample's locations, innermost first, inlined lines innermost first
			pb := filepath.Join(dir, c.file+".pb.gz")
			run(t, empty, "report", "--pprof", pb, "-i", file)
			fh, err := os.Open(pb)
			if err != nil {
				t.Fatal(err)
			}
			p, err := profile.Parse(fh)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			vi := slices.IndexFunc(p.SampleType, func(st *profile.ValueType) bool {
				return strings.HasPrefix(st.Type, "cpu-clock") || strings.HasPrefix(st.Type, "cycles")
			})
			if vi < 0 {
				t.Fatalf("no period among the sample types %v", p.SampleType)
			}
			fromPprof := map[string]int64{}
			for _, s := range p.Sample {
				var frames []string
				for _, loc := range s.Location {
					for _, ln := range loc.Line {
						frames = append(frames, ln.Function.Name)
					}
					if len(loc.Line) == 0 {
						frames = append(frames, fmt.Sprintf("%#x", loc.Address))
					}
				}
				slices.Reverse(frames)
				fromPprof[strings.Join(frames, ";")] += s.Value[vi]
			}
			if symbolic && !maps.Equal(fromPprof, want) {
				t.Errorf("--pprof stacks differ from perf script's:\nperf: %v\npmc:  %v", want, fromPprof)
			}
			if !symbolic && fmt.Sprint(depths(fromPprof)) != fmt.Sprint(depths(want)) {
				t.Errorf("--pprof depths differ from perf script's:\nperf: %v\npmc:  %v", depths(want), depths(fromPprof))
			}

			// diff -g FILE FILE: the baseline's children entries are perf report --children's
			children, err := os.ReadFile(filepath.Join("testdata", "perf", c.file+".children.txt"))
			if err != nil {
				t.Fatal(err)
			}
			diff := run(t, empty, "diff", "-g", file, file)
			_, section, ok := strings.Cut(diff, "# Children")
			if !ok {
				t.Fatalf("pmc diff -g has no children section:\n%s", diff)
			}
			w, g := childrenRows(string(children), 6), childrenRows(section, 4)
			if len(w) == 0 || !slices.Equal(w, g) {
				t.Errorf("diff -g's children entries differ from perf report --children's:\nperf: %q\npmc:  %q", w, g)
			}
			t.Logf("%d stacks (--folded, --pprof), %d children entries (diff -g) equal perf's", len(want), len(w))
		})
	}
}

// depths is the total period of the stacks of each depth: what can be compared when the
// frames are addresses that perf and pmc name differently.
func depths(stacks map[string]int64) map[int]int64 {
	out := map[int]int64{}
	for s, n := range stacks {
		out[strings.Count(s, ";")+1] += n
	}
	return out
}

var (
	symOff  = regexp.MustCompile(`\+0x[0-9a-f]+`)
	dsoPart = regexp.MustCompile(` \([^()]*\)$`)
)

// TestScriptFieldsAgreeWithPerf: pmc script -F ip,sym (no DSO) prints each frame as perf
// script does, an inlined one with " (inlined)" still: perf's default output with the
// offsets and DSOs taken out.
func TestScriptFieldsAgreeWithPerf(t *testing.T) {
	dir, empty := t.TempDir(), t.TempDir()
	for _, file := range []string{"here.callchain.data", "here.pmc.data"} {
		script, err := os.ReadFile(filepath.Join("testdata", "perf", file+".script.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, s := range samples(string(script)) {
			for _, f := range s[1:] {
				if !strings.HasSuffix(f, " (inlined)") {
					f = dsoPart.ReplaceAllString(f, "")
				}
				want = append(want, symOff.ReplaceAllString(f, ""))
			}
		}
		var got []string
		for _, s := range samples(run(t, empty, "script", "-F", "ip,sym", "-i", unpack(t, dir, file))) {
			got = append(got, s...)
		}
		if !slices.Equal(got, want) || !slices.ContainsFunc(got, func(f string) bool { return strings.HasSuffix(f, " (inlined)") }) {
			t.Errorf("%s: pmc script -F ip,sym differs from perf's frames:\n%s", file, golden.Diff(strings.Join(want, "\n"), strings.Join(got, "\n")))
		}
	}
}

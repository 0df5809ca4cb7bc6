package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/driver"
	"github.com/pmc-tools/pmc/internal/golden"
	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile/fromperf"
	"github.com/pmc-tools/pmc/internal/symbol"
)

// perfDataDir holds the perf.data files perf 6.1 recorded on the project's x86_64 VM (see its
// README.md) and, beside each, FILE.pmcsym: the symbols of what its samples hit, taken on that
// machine (the loop workload's binary, libraries, /proc/kallsyms) when the goldens were made.
const perfDataDir = "../perfdata/testdata"

// reportGoldens are perf report --stdio runs recorded in testdata/perf-report/NAME.txt.
// exact: pmc's whole output equals perf's (but for perf's random tip line); otherwise the
// headers and rows (every percentage, in perf's order) are equal and the call graphs differ.
var reportGoldens = []struct {
	name, file string
	args       []string
	exact      bool
}{
	{"cpuclock", "cpuclock.data", nil, true},
	{"callgraph", "callgraph.data", nil, true},
	{"callgraph-no-children", "callgraph.data", []string{"--no-children"}, true},
	{"callgraph-dso", "callgraph.data", []string{"--no-children", "--sort", "dso", "-g", "none"}, true},
	{"multi", "multi.data", nil, true},
	{"system", "system.data", nil, true},
	{"system-comm-dso", "system.data", []string{"--sort", "comm,dso"}, true},
	{"system-limit", "system.data", []string{"--percent-limit", "2"}, true},
	{"attach", "attach.data", nil, true},
}

// pmcArgs translates perf report's options into pmc report's.
func pmcArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-g" && i+1 < len(args) && args[i+1] == "none" {
			out = append(out, "-g=false")
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

var tipLine = regexp.MustCompile(`(?m)^# \(Tip: .*\)\n`)

// perfReport runs perf report --stdio (without its random tip).
func perfReport(t *testing.T, file string, args ...string) string {
	t.Helper()
	cmd := exec.Command("perf", append([]string{"report", "--stdio", "-i", file}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf report %v: %v: %s", args, err, stderr.String())
	}
	return tipLine.ReplaceAllString(string(out), "")
}

// reportRows are the header lines and entry rows of a report, blanks squeezed: what must
// agree with perf to the digit.
func reportRows(text string) []string {
	var rows []string
	row := regexp.MustCompile(`^ +[0-9]+\.[0-9]+% `)
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "# Samples:") || strings.HasPrefix(l, "# Event count") || strings.HasPrefix(l, "# Total Lost") || row.MatchString(l) {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
	}
	return rows
}

// writeTestArchive writes FILE.pmcsym for a committed recording from this machine's binaries
// and kernel symbols: only the symbols samples hit.
func writeTestArchive(t *testing.T, file string) {
	pf, err := perfdata.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	res := symbol.NewResolver(os.DirFS("/"))
	k, err := driver.RunningKernel(machine())
	if err != nil {
		t.Fatal(err)
	}
	res.Kernel = k
	p, err := fromperf.Build(pf, res)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := symbol.WriteArchive(&buf, sampledTables(p, true)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(symbol.ArchivePath(file), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportAgreesWithPerf: pmc report on perf's recordings gives perf report's percentages
// to the digit, in perf's order. pmc resolves from the archive beside each file only (an
// empty --symfs), so the test is the same on every machine; -update-perf rewrites perf's
// output and the archives on the machine that recorded the files (it needs perf, the loop
// binary the README names and root for kernel symbols).
func TestReportAgreesWithPerf(t *testing.T) {
	empty := t.TempDir()
	if golden.UpdatingPerf() {
		for _, f := range []string{"cpuclock.data", "callgraph.data", "multi.data", "system.data", "attach.data"} {
			writeTestArchive(t, filepath.Join(perfDataDir, f))
		}
	}
	for _, c := range reportGoldens {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(perfDataDir, c.file)
			goldenPath := filepath.Join("testdata", "perf-report", c.name+".txt")
			if golden.UpdatingPerf() {
				golden.Write(t, goldenPath, []byte(perfReport(t, file, c.args...)))
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (go test -update-perf runs perf to write it)", err)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"report", "--stdio", "-i", file, "--symfs", empty}, pmcArgs(c.args)...)
			if code := testRun(args, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
				t.Fatalf("pmc %v: exit %d: %s", args, code, stderr.String())
			}
			got := tipLine.ReplaceAllString(stdout.String(), "")
			wr, gr := reportRows(string(want)), reportRows(got)
			if len(wr) < 4 || strings.Join(wr, "\n") != strings.Join(gr, "\n") {
				t.Fatalf("rows differ from perf's:\n%s", golden.Diff(strings.Join(wr, "\n"), strings.Join(gr, "\n")))
			}
			if c.exact && got != string(want) {
				t.Errorf("text differs from perf's:\n%s", golden.Diff(string(want), got))
			}
			// Where perf runs and resolves as it did when the golden was made (the recording
			// machine), it must still say the same.
			if _, err := exec.LookPath("perf"); err == nil && !golden.UpdatingPerf() {
				live := perfReport(t, file, c.args...)
				if live != string(want) {
					t.Logf("live perf report differs from the golden (another machine: binaries or kernel symbols differ); compared with the golden only")
				}
			}
		})
	}
}

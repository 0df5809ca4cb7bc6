package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/stat"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var goldenCases = []struct {
	name  string
	build func() *stat.Result
}{
	{"default", caseDefault},
	{"multiplexed", caseMultiplexed},
	{"notcounted", caseNotCounted},
	{"repeat5", caseRepeat5},
	{"interval", caseInterval},
	{"percpu", casePerCPU},
	{"metrics-flagged", caseMetricsFlagged},
}

// renderText prints r as pmc stat will: a Result with intervals is streamed one interval
// at a time with that interval's metrics, as the -I loop does.
func renderText(t *testing.T, r *stat.Result, opt TextOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if len(r.Intervals) == 0 {
		if err := Text(&b, r, opt); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for i, iv := range r.Intervals {
		o := opt
		o.Metrics = intervalMetrics(r, i)
		if err := TextInterval(&b, r, iv, i%25 == 0, o); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func renderCSV(t *testing.T, r *stat.Result, opt CSVOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if len(r.Intervals) == 0 {
		if err := CSV(&b, r, opt); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for i, iv := range r.Intervals {
		o := opt
		o.Metrics = intervalMetrics(r, i)
		if err := CSVInterval(&b, r, iv, i == 0, o); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func renderJSON(t *testing.T, r *stat.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			r := c.build()
			checkGolden(t, "stat."+c.name+".txt", renderText(t, r, TextOptions{}))
			checkGolden(t, "stat."+c.name+".json", renderJSON(t, r))
			checkGolden(t, "stat."+c.name+".csv", renderCSV(t, r, CSVOptions{Sep: ',', Header: true}))
			checkGolden(t, "stat."+c.name+".perf.csv", renderCSV(t, r, CSVOptions{Sep: ','}))
		})
	}
}

// checkGolden compares got with testdata/name, or rewrites the file with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first lines that differ, with their line numbers.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, w, g)
			if shown++; shown == 5 {
				break
			}
		}
	}
	return b.String()
}

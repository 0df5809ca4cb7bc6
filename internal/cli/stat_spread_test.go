package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// TestCPUsUtilizedOneDefinition: over runs of different lengths (1 s at 0.3 CPUs, 0.1 s at
// 0.9) CPUs utilized is the mean task-clock over the mean wall time, 0.355, on the main line,
// in the spread table, in the report file and in JSON; the mean of the runs' own ratios (0.6)
// is printed nowhere as the metric.
func TestCPUsUtilizedOneDefinition(t *testing.T) {
	fake := filepath.Join("testdata", "fake", "uneven.json")
	report := filepath.Join(t.TempDir(), "report.txt")
	var stdout, stderr bytes.Buffer
	if code := testRun([]string{"stat", "--fake", fake, "-r", "2", "--table", "--report", report, "-e", "task-clock", "--", "./x"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rep, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"text": stderr.String(), "report": string(rep)} {
		if strings.Contains(text, "0.600") {
			t.Errorf("%s prints the mean of the runs' ratios, 0.600:\n%s", name, text)
		}
		n := 0
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, "CPUs utilized") && strings.Contains(l, "0.355") {
				n++
			}
		}
		if want := map[string]int{"text": 2, "report": 2}[name]; n < want {
			t.Errorf("%s: %d lines with CPUs utilized 0.355, want %d (main line or metric, and spread table):\n%s", name, n, want, text)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := testRun([]string{"stat", "--fake", fake, "-r", "2", "--json", "-e", "task-clock", "--", "./x"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res result.Stat
	if err := json.Unmarshal(stderr.Bytes(), &res); err != nil {
		if err = json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("JSON: %v\n%s%s", err, stdout.String(), stderr.String())
		}
	}
	for _, m := range res.Metrics {
		if m.Name == "cpus_utilized" && (m.Value < 0.3545 || m.Value > 0.3546) {
			t.Errorf("JSON cpus_utilized %v, want 0.39/1.1 = 0.3545", m.Value)
		}
	}
}

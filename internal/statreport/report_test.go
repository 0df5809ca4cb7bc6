package statreport

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/statfmt"

	"github.com/pmc-tools/pmc/internal/metrics"
)

func TestGroup(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "999": "999", "1000": "1,000", "123456": "123,456", "1234567": "1,234,567",
		"-1234567.891": "-1,234,567.891", "12.500": "12.500", "11759598288": "11,759,598,288",
	} {
		if got := group(in); got != want {
			t.Errorf("group(%q) = %q, want %q", in, got, want)
		}
	}
}

func testMachine() Machine {
	return Machine{Host: "h", Kernel: "Linux 6.1 x86_64", Date: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC),
		Processors: 2, CPU: "test cpu", PMU: "cpu"}
}

// TestWriteModes: what the header and notes say for attach and system modes, repeats,
// --no-scale, per-CPU rows, an event refused without a reason, a workload that failed.
func TestWriteModes(t *testing.T) {
	res := &result.Stat{Mode: "system", CPUs: []int{0, 2}, Scaled: false, Backend: "perf_event", ExitStatus: 0,
		Runs: []result.Run{{}, {}},
		Summary: []result.Summary{
			{Event: "cycles", CPU: 0, Status: result.Counted, Mean: 1500, RawMean: 1500, Enabled: 10, Running: 10},
			{Event: "cycles", CPU: 2, Status: result.Counted, Mean: 2500, RawMean: 2500, Enabled: 10, Running: 5},
			{Event: "r1234", Group: 1, CPU: -1, Status: result.NotSupported},
		},
		Metrics: []result.Metric{{Name: "mystery", Value: 1234.5678, CPU: 2, Valid: true, Together: true}},
	}
	var b bytes.Buffer
	if err := Write(&b, Report{Machine: testMachine(), Result: res}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  Command:              system wide, CPUs 0,2\n",
		"  Runs:                 2 (counts, times and metrics are means over the runs)\n",
		"  Scaling:              off (--no-scale): scaled counts equal raw counts\n",
		"      0  cycles (CPU0)                 1,500                 1,500   100.00%\n",
		"      0  cycles (CPU2)                 2,500                 2,500    50.00%\n",
		"      1  r1234               <not supported>\n",
		"  Other\n    mystery (CPU2)                  1,234.568  -                  together\n",
		"  1. r1234 is not supported: the kernel refused it\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "User time") {
		t.Errorf("system mode has no workload rusage:\n%s", out)
	}

	res = &result.Stat{Mode: "attach", PIDs: []int{12, 34}, Scaled: true, ExitStatus: 3, Runs: []result.Run{{}}}
	b.Reset()
	if err := Write(&b, Report{Machine: Machine{}, Result: res}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  Command:              process id 12,34\n", "  Host:                 unknown\n",
		"none: no metric applies to the events counted", "  1. the command exited with status 3\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}

// TestSections: a metric goes to the first report section among its groups; a user group
// gets a section named after it, in order of appearance after the built-in ones.
func TestSections(t *testing.T) {
	set, err := metrics.Builtin(metrics.ArchGeneric).Merge(metrics.Def{Name: "mine", Expr: "instructions", Group: "default,zzz"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"ipc": "Instructions and cycles", "ghz": "Instructions and cycles", "branch_miss_ratio": "Branches",
		"cpus_utilized": "Software events", "dtlb_mpki": "TLB", "frontend_stall_pct": "Stalls",
		"l1d_miss_ratio": "Caches", "mine": "Group zzz", "unknown": "Other",
	} {
		if got := sectionOf(set, name); got != want {
			t.Errorf("%s: section %q, want %q", name, got, want)
		}
	}
}

// FuzzWriters: no panic for any name, value or warning; CSV always reads back.
func FuzzWriters(f *testing.F) {
	f.Add("ipc", "insn per cycle", 1.25, "", true)
	f.Add("a,b\"\n", "%", math.Inf(1), "x; ; not measured together", false)
	f.Add("", "", math.NaN(), "\x00", true)
	f.Fuzz(func(t *testing.T, name, unit string, v float64, warning string, ok bool) {
		res := &result.Stat{Command: []string{name}, Summary: []result.Summary{{Event: name, Status: result.Counted, Mean: v, RawMean: v}},
			Metrics: []result.Metric{{Name: name, Unit: unit, Value: v, Valid: ok, Warning: warning, CPU: -1}}}
		var b bytes.Buffer
		if err := Write(&b, Report{Result: res}); err != nil {
			t.Fatal(err)
		}
		statfmt.MetricOnlyText(&b, res)
		b.Reset()
		if err := statfmt.MetricOnlyCSV(&b, res, ',', true); err != nil {
			return // invalid UTF-8 and the like are errors, not panics
		}
		if _, err := csv.NewReader(&b).ReadAll(); err != nil {
			t.Fatalf("csv does not read back: %v\n%q", err, b.String())
		}
		b.Reset()
		if err := statfmt.MetricOnlyJSON(&b, res); err != nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			t.Fatal(err)
		}
	})
}

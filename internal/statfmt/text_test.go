package statfmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

func textOf(t *testing.T, r *result.Stat, opt TextOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := Text(&b, r, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestThousands(t *testing.T) {
	out := textOf(t, caseMetricsFlagged(), TextOptions{Thousands: ','})
	for _, want := range []string{
		"    11,620,000,001      cycles ",
		"   148,155,000,000      instructions ",
		"    34,380,000,004      branch-misses ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for in, want := range map[string]string{
		"0": "0", "999": "999", "1000": "1.000", "1234567.89": "1.234.567.89",
		"-1234": "-1.234", "123456": "123.456",
	} {
		if got := GroupDigits(in, '.'); got != want {
			t.Errorf("GroupDigits(%q, '.') = %q, want %q", in, got, want)
		}
	}
	if got := GroupDigits("102013.00", ','); got != "102,013.00" {
		t.Errorf("msec grouping: %q", got)
	}
}

func TestThousandsFromEnv(t *testing.T) {
	for env, want := range map[string]rune{
		"":            0,
		"C":           0,
		"C.UTF-8":     0,
		"POSIX":       0,
		"en_US.UTF-8": ',',
		"en_GB":       ',',
		"de_DE.UTF-8": '.',
		"fr_FR.UTF-8": 0, // glibc groups with a narrow no-break space; no guess
	} {
		got := ThousandsFromEnv(func(k string) string {
			if k == "LANG" {
				return env
			}
			return ""
		})
		if got != want {
			t.Errorf("LANG=%q: %q, want %q", env, got, want)
		}
	}
	// LC_ALL wins over LANG, as in setlocale.
	got := ThousandsFromEnv(func(k string) string {
		return map[string]string{"LC_ALL": "C", "LANG": "en_US.UTF-8"}[k]
	})
	if got != 0 {
		t.Errorf("LC_ALL=C LANG=en_US: %q, want none", got)
	}
}

// TestNoScale: with --no-scale the value column is the raw count, the running share is
// still shown.
func TestNoScale(t *testing.T) {
	r := caseMultiplexed()
	r.Scaled = false
	out := textOf(t, r, TextOptions{})
	if !strings.Contains(out, "          75000011      L1-dcache-loads ") || !strings.Contains(out, "(75.00%)") {
		t.Errorf("raw count or running share missing:\n%s", out)
	}
	var b bytes.Buffer
	if err := CSV(&b, r, CSVOptions{Sep: ','}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n75000011,,L1-dcache-loads,") {
		t.Errorf("CSV value is not the raw count:\n%s", b.String())
	}
}

func TestTitles(t *testing.T) {
	for _, c := range []struct {
		r    result.Stat
		want string
	}{
		{result.Stat{Mode: "launch", Command: []string{"ls", "-l", "/tmp"}}, "Performance counter stats for 'ls -l /tmp'"},
		{result.Stat{Mode: "launch", Command: []string{"true"}, Repeat: 5}, "Performance counter stats for 'true' (5 runs)"},
		{result.Stat{Mode: "attach", PIDs: []int{123}}, "Performance counter stats for process id '123'"},
		{result.Stat{Mode: "attach", PIDs: []int{1, 2}}, "Performance counter stats for process id '1,2'"},
		{result.Stat{Mode: "system"}, "Performance counter stats for 'system wide'"},
		{result.Stat{Mode: "system", CPUs: []int{0}}, "Performance counter stats for 'CPU(s) 0'"},
		{result.Stat{Mode: "system", CPUs: []int{0, 1, 2, 3, 6, 8, 9}}, "Performance counter stats for 'CPU(s) 0-3,6,8-9'"},
	} {
		if got := Title(&c.r); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestAttachFooter: perf shows user and sys time only for a workload it launched.
func TestAttachFooter(t *testing.T) {
	r := caseDefault()
	r.Mode, r.Command, r.PIDs = "attach", nil, []int{9180}
	out := textOf(t, r, TextOptions{})
	if strings.Contains(out, "seconds user") || !strings.HasSuffix(out, "       0.001277985 seconds time elapsed\n\n") {
		t.Errorf("attach footer:\n%q", out)
	}
}

// TestTextIntervals: Text on a Result with intervals prints what streaming them one by one
// prints (without per-interval metrics, which a Result does not hold).
func TestTextIntervals(t *testing.T) {
	r := caseInterval()
	var stream bytes.Buffer
	for i, iv := range r.Intervals {
		if err := TextInterval(&stream, r, iv, i == 0); err != nil {
			t.Fatal(err)
		}
	}
	if got := textOf(t, r, TextOptions{}); got != stream.String() {
		t.Errorf("Text:\n%s\nstreamed:\n%s", got, stream.String())
	}
	if strings.Contains(stream.String(), " # ") {
		t.Errorf("metrics printed without being given:\n%s", stream.String())
	}
}

// TestIntervalHeaderEvery25: perf repeats the column header every 25 intervals.
func TestIntervalHeaderEvery25(t *testing.T) {
	r := caseInterval()
	iv := r.Intervals[0]
	r.Intervals = nil
	for i := 0; i < 60; i++ {
		iv.TimeSec = float64(i+1) * 0.1
		r.Intervals = append(r.Intervals, iv)
	}
	out := textOf(t, r, TextOptions{})
	if n := strings.Count(out, "#           time             counts unit events\n"); n != 3 {
		t.Errorf("%d headers for 60 intervals, want 3 (intervals 1, 26, 51)", n)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[1+25*2], "#           time") {
		t.Errorf("header not before interval 26: %q", lines[1+25*2])
	}
}

// TestPerCPUIntervalHeader: with -A the header has perf's CPU column.
func TestPerCPUIntervalHeader(t *testing.T) {
	r := casePerCPU()
	iv := result.Interval{TimeSec: 0.100149340, Counts: r.Runs[0].Counts}
	var b bytes.Buffer
	if err := TextInterval(&b, r, iv, true); err != nil {
		t.Fatal(err)
	}
	// perf stat -A -a -e cpu-clock -I 100 (perf 6.1, this VM)
	want := "#           time CPU                    counts unit events\n" +
		"     0.100149340 CPU0                   102.01 msec cpu-clock                                                          \n"
	if got := b.String(); !strings.HasPrefix(got, want) {
		t.Errorf("got\n%q\nwant prefix\n%q", got, want)
	}
}

func TestFormatHelpers(t *testing.T) {
	for v, want := range map[float64]string{0: "0.000 /sec", 999: "999.000 /sec", 84939.1: "84.939 K/sec",
		2.5e6: "2.500 M/sec", 3e9: "3.000 G/sec"} {
		x, u := rateUnit(v)
		if got := strings.TrimSpace(strings.Join([]string{formatFloat3(x), u}, " ")); got != want {
			t.Errorf("rateUnit(%g) = %q, want %q", v, got, want)
		}
	}
	// perf: two more decimals than the first significant digit of the uncertainty.
	for sem, want := range map[float64]int{0.000138: 6, 0.0000403: 7, 0.05: 4, 0.5: 3, 3: 2, 0: 9} {
		if got := perfPrecision(sem); got != want {
			t.Errorf("perfPrecision(%g) = %d, want %d", sem, got, want)
		}
	}
}

func formatFloat3(v float64) string {
	return describeMetric(result.Metric{Value: v, Unit: "x y", Valid: true}).value
}

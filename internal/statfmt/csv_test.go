package statfmt

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// awkward event names: a PMU form with commas, a quote, a newline, a CR, a semicolon.
var awkward = []string{
	"cpu/event=0x3c,umask=0/",
	`say "cheese"`,
	"two\nlines",
	"cr\r\nlf",
	"semi;colon",
	" leading space",
}

func awkwardResult() *result.Stat {
	var counts []result.Count
	var metrics []result.Metric
	for i, name := range awkward {
		counts = append(counts, hw(name, i, result.Encoding{Type: 4, Config: uint64(i)}, uint64(1000+i), 2000, 1000))
		metrics = append(metrics, result.Metric{Name: "m,\"" + name, Value: float64(i), Unit: "PTI", Event: name, CPU: -1, Valid: true, Together: true,
			Warning: "odd, \"quoted\"\nwarning"})
	}
	r := finish(&result.Stat{Command: []string{"x"}, Mode: "launch", Scaled: true,
		Runs: []result.Run{{ElapsedSec: 1, Counts: counts}}})
	r.Metrics = metrics
	return r
}

// TestCSVRoundTrip: encoding/csv reads back exactly the event names, metric names and
// warnings written, whatever characters they hold, for both forms and two separators.
func TestCSVRoundTrip(t *testing.T) {
	r := awkwardResult()
	for _, opt := range []CSVOptions{{Sep: ','}, {Sep: ';'}, {Sep: '\t'}, {Sep: ',', Header: true}} {
		var b bytes.Buffer
		if err := CSV(&b, r, opt); err != nil {
			t.Fatal(err)
		}
		rd := csv.NewReader(&b)
		rd.Comma = opt.Sep
		recs, err := rd.ReadAll()
		if err != nil {
			t.Fatalf("sep %q header %v: encoding/csv cannot read the output: %v\n%s", opt.Sep, opt.Header, err, b.String())
		}
		event, width := 2, 7
		if opt.Header {
			if strings.Join(recs[0], ",") != strings.Join(append(append([]string{}, perfColumns...), extraColumns...), ",") {
				t.Errorf("header row %q", recs[0])
			}
			recs = recs[1:]
			width = len(perfColumns) + len(extraColumns)
		}
		if len(recs) != len(awkward) {
			t.Fatalf("sep %q: %d records, want %d:\n%s", opt.Sep, len(recs), len(awkward), b.String())
		}
		for i, rec := range recs {
			if len(rec) != width {
				t.Errorf("sep %q record %d has %d fields, want %d: %q", opt.Sep, i, len(rec), width, rec)
				continue
			}
			// encoding/csv turns a quoted CR LF into LF, as RFC 4180 readers may.
			want := strings.ReplaceAll(awkward[i], "\r\n", "\n")
			if rec[event] != want {
				t.Errorf("sep %q: event %q read back as %q", opt.Sep, want, rec[event])
			}
			// hw(raw, enabled 2000, running 1000): the value is the scaled count, twice raw.
			if rec[0] != strconv.Itoa(2*(1000+i)) {
				t.Errorf("sep %q: value %q, want %d", opt.Sep, rec[0], 2*(1000+i))
			}
			if opt.Header {
				// metric-name and metric-note, then bound-pct and metric-bound-pct
				if rec[len(rec)-4] != "m,\""+want {
					t.Errorf("metric name read back as %q", rec[len(rec)-4])
				}
				if rec[len(rec)-3] != "odd, \"quoted\"\nwarning" {
					t.Errorf("metric note read back as %q", rec[len(rec)-3])
				}
			}
		}
	}
}

func TestCSVQuoting(t *testing.T) {
	c := &csvWriter{opt: CSVOptions{Sep: ','}}
	c.record([]string{"plain", "a,b", `q"q`, "l\nf", "c\rr", "", "  spaces kept", "tab\tok"})
	want := "plain,\"a,b\",\"q\"\"q\",\"l\nf\",\"c\rr\",,  spaces kept,tab\tok\n"
	if got := c.b.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestCSVBadSeparator(t *testing.T) {
	for _, sep := range []rune{'"', '\n', '\r', 0xFFFD, -1} {
		err := CSV(io.Discard, caseDefault(), CSVOptions{Sep: sep})
		if !errors.Is(err, ErrBadSeparator) {
			t.Errorf("sep %q: err = %v, want ErrBadSeparator", sep, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
	}
	var b bytes.Buffer
	if err := CSV(&b, caseDefault(), CSVOptions{}); err != nil || !strings.HasPrefix(b.String(), "0.60,msec,task-clock,") {
		t.Errorf("Sep 0 should mean ',': %v %q", err, b.String())
	}
}

// TestCSVLocaleFree: CSV numbers never carry grouping, whatever the text options.
func TestCSVLocaleFree(t *testing.T) {
	var b bytes.Buffer
	if err := CSV(&b, caseMultiplexed(), CSVOptions{Sep: ';'}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "200000015;;cycles;2118407552;100.00;;\n") {
		t.Errorf("first record %q", strings.SplitN(b.String(), "\n", 2)[0])
	}
}

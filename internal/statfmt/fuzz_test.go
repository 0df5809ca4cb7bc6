package statfmt

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/result"
)

// FuzzWriters: any event name, count, times, metric value and separator are written
// without a panic, and the CSV always reads back with encoding/csv to the same event name.
// The seed corpus runs in plain go test.
func FuzzWriters(f *testing.F) {
	f.Add("cycles", uint64(1234), uint64(2000), uint64(1000), 1.5, "insn per cycle", ',', false)
	f.Add("cpu/event=0x3c,umask=0/", uint64(0), uint64(0), uint64(0), 0.0, "%", ';', true)
	f.Add("a\"b\nc\r", uint64(math.MaxUint64), uint64(1), uint64(2), math.Inf(1), "/sec", '\t', false)
	f.Add("", uint64(7), uint64(5), uint64(0), math.NaN(), "", 'x', true)
	f.Add("  spaced  ", uint64(1e9), uint64(3e9), uint64(1e9), -2.5, "PTI", '.', false)
	f.Fuzz(func(t *testing.T, event string, raw, enabled, running uint64, mv float64, unit string, sep rune, header bool) {
		c := hw(event, 0, result.Encoding{Type: 4}, raw, enabled, running)
		if running == 0 {
			c.Status = result.NotCounted
		}
		if raw%3 == 0 {
			c.Unit = "msec"
		}
		r := finish(&result.Stat{Command: []string{event}, Mode: "launch", Scaled: raw%2 == 0,
			Runs: []result.Run{{ElapsedSec: 1, Counts: []result.Count{c}}}})
		r.Metrics = []result.Metric{
			{Name: event, Value: mv, Unit: unit, Event: event, CPU: -1, Valid: raw%5 != 0, Warning: event},
			{Name: "orphan", Value: mv, Unit: unit, Event: event + "?", CPU: int(raw%3) - 1, Valid: true},
		}
		_ = Text(io.Discard, r, TextOptions{Thousands: sep})
		_ = JSON(io.Discard, r) // NaN and Inf are an error, never a panic
		var b bytes.Buffer
		err := CSV(&b, r, CSVOptions{Sep: sep, Header: header})
		if err != nil {
			return // a separator that cannot work is refused
		}
		rd := csv.NewReader(&b)
		rd.Comma = sep
		if sep == 0 {
			rd.Comma = ',' // CSVOptions' default
		}
		rd.FieldsPerRecord = -1
		recs, err := rd.ReadAll()
		if err != nil {
			t.Fatalf("sep %q: encoding/csv cannot read the output: %v\n%q", sep, err, b.String())
		}
		if header {
			recs = recs[1:]
		}
		want := strings.ReplaceAll(event, "\r\n", "\n")
		if len(recs) == 0 || recs[0][2] != want {
			t.Fatalf("sep %q: event %q read back as %q", sep, want, recs)
		}
	})
}

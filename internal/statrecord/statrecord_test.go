package statrecord

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/perfevent"
	"github.com/pmc-tools/pmc/internal/result"
	"github.com/pmc-tools/pmc/internal/stat"
)

// row is what a count says, for comparisons.
type row struct {
	Event                 string
	CPU, TID              int
	Status                result.Status
	Raw, Enabled, Running uint64
	Scaled                float64
	Unit                  string
	Value                 float64
}

func rows(r *result.Stat) []row {
	var out []row
	for _, c := range r.Runs[0].Counts {
		out = append(out, row{c.Event, c.CPU, c.TID, c.Status, c.Raw, c.Enabled, c.Running, c.Scaled, c.Unit, c.Value()})
	}
	return out
}

func read(t *testing.T, path string) *result.Stat {
	t.Helper()
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var notSupported = func(ev string) row { return row{Event: ev, CPU: -1, Status: result.NotSupported} }

// perf's own stat record files (internal/perfdata/testdata/README.md) read back as the
// counts perf report -D shows in them, summed over CPUs as perf stat report sums them.
func TestReadPerf(t *testing.T) {
	hw := []row{notSupported("cycles"), notSupported("instructions"), notSupported("branches"), notSupported("branch-misses")}
	for _, c := range []struct {
		file    string
		command []string
		elapsed float64
		rows    []row
	}{
		{"stat.data", []string{"/usr/bin/perf", "stat", "record", "-o", "stat.data", "true"}, 1752e-9, append([]row{
			{"task-clock", -1, 0, result.Counted, 654844, 654844, 654844, 654844, "msec", 0.654844},
			{"context-switches", -1, 0, result.Counted, 0, 654844, 654844, 0, "", 0},
			{"cpu-migrations", -1, 0, result.Counted, 0, 654844, 654844, 0, "", 0},
			{"page-faults", -1, 0, result.Counted, 49, 654844, 654844, 49, "", 49}}, hw...)},
		{"stat-pipe.data", []string{"pipe"}, 1040860e-9, append([]row{
			{"task-clock", -1, 0, result.Counted, 637031, 637031, 637031, 637031, "msec", 0.637031},
			{"context-switches", -1, 0, result.Counted, 0, 637031, 637031, 0, "", 0},
			{"cpu-migrations", -1, 0, result.Counted, 0, 637031, 637031, 0, "", 0},
			{"page-faults", -1, 0, result.Counted, 49, 637031, 637031, 49, "", 49}}, hw...)},
		{"stat-a.data", []string{"/usr/bin/perf", "stat", "record", "-a", "-e", "task-clock,page-faults", "-o", "stat-a.data", "--", "sleep", "0.1"}, 126364904e-9, []row{
			{"task-clock", -1, 0, result.Counted, 130348629 + 126376654, 130348629 + 126376654, 130348629 + 126376654, 130348629 + 126376654, "msec", (130348629 + 126376654) * 1e-6},
			{"page-faults", -1, 0, result.Counted, 5182 + 1588, 130349404 + 126375699, 130349404 + 126375699, 5182 + 1588, "", 5182 + 1588}}},
	} {
		t.Run(c.file, func(t *testing.T) {
			r := read(t, filepath.Join("..", "perfdata", "testdata", c.file))
			if !reflect.DeepEqual(r.Command[1:], c.command[1:]) || r.Mode != Mode || r.Runs[0].ElapsedSec != c.elapsed || r.ElapsedSec != c.elapsed {
				t.Errorf("command %q, mode %q, elapsed %v; want %q, %q, %v", r.Command, r.Mode, r.Runs[0].ElapsedSec, c.command, Mode, c.elapsed)
			}
			if got := rows(r); !reflect.DeepEqual(got, c.rows) {
				t.Errorf("counts:\n%+v\nwant\n%+v", got, c.rows)
			}
			if len(r.Summary) != len(c.rows) {
				t.Errorf("%d summaries for %d counts", len(r.Summary), len(c.rows))
			}
		})
	}
}

func swEvent(name string, config uint64, group int, unit string, scale float64) stat.Event {
	return stat.Event{Name: name, Group: group, Unit: unit, Scale: scale,
		Attr: perfevent.Attr{Type: perfevent.TypeSoftware, Config: config, Disabled: true, Inherit: true, EnableOnExec: true}}
}

// memFile is a seekable in-memory file.
type memFile struct {
	b   []byte
	off int
}

func (m *memFile) Write(p []byte) (int, error) {
	if end := m.off + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	m.off += copy(m.b[m.off:], p)
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case 0:
		m.off = int(off)
	case 1:
		m.off += int(off)
	case 2:
		m.off = len(m.b) + int(off)
	}
	return int64(m.off), nil
}

// A result written as a file and as a pipe reads back the same counts: counted (scaled for
// multiplexing), never run, not supported; whole, per CPU and per thread.
func TestRoundTrip(t *testing.T) {
	events := []stat.Event{swEvent("task-clock", perfevent.SWTaskClock, 0, "msec", 1e-6),
		swEvent("page-faults", perfevent.SWPageFaults, 1, "", 0), swEvent("cpu-migrations", 4, 2, "", 0),
		{Name: "cycles", Group: 3, Attr: perfevent.Attr{Type: perfevent.TypeHardware}}}
	us := 1e-6 // computed as the reader computes it
	count := func(ev string, group, cpu, tid int, thread string, raw, ena, run uint64) result.Count {
		c := result.Count{Event: ev, Group: group, CPU: cpu, TID: tid, Thread: thread, Raw: raw, Enabled: ena, Running: run, Status: result.Counted}
		if run == 0 {
			c.Status = result.NotCounted
		}
		return c
	}
	for _, c := range []struct {
		name   string
		counts []result.Count
		want   []row
	}{
		{"whole", []result.Count{count("task-clock", 0, -1, 0, "", 2000000, 2000000, 2000000), count("page-faults", 1, -1, 0, "", 300, 2000000, 1000000),
			count("cpu-migrations", 2, -1, 0, "", 0, 2000000, 0), {Event: "cycles", Group: 3, CPU: -1, Status: result.NotSupported}},
			[]row{{"task-clock", -1, 0, result.Counted, 2000000, 2000000, 2000000, 2000000, "msec", 2},
				{"page-faults", -1, 0, result.Counted, 300, 2000000, 1000000, 600, "", 600},
				{"cpu-migrations", -1, 0, result.NotCounted, 0, 2000000, 0, 0, "", 0}, notSupported("cycles")}},
		{"per-cpu", []result.Count{count("task-clock", 0, 0, 0, "", 5, 5, 5), count("task-clock", 0, 1, 0, "", 7, 7, 7),
			count("page-faults", 1, 0, 0, "", 1, 5, 5), count("page-faults", 1, 1, 0, "", 2, 7, 7)},
			[]row{{"task-clock", 0, 0, result.Counted, 5, 5, 5, 5, "msec", 5 * us}, {"task-clock", 1, 0, result.Counted, 7, 7, 7, 7, "msec", 7 * us},
				{"page-faults", 0, 0, result.Counted, 1, 5, 5, 1, "", 1}, {"page-faults", 1, 0, result.Counted, 2, 7, 7, 2, "", 2},
				notSupported("cpu-migrations"), notSupported("cycles")}},
		{"per-thread", []result.Count{count("task-clock", 0, -1, 41, "sh-41", 5, 5, 5), count("task-clock", 0, -1, 42, "ls-42", 7, 7, 7)},
			[]row{{"task-clock", -1, 41, result.Counted, 5, 5, 5, 5, "msec", 5 * us}, {"task-clock", -1, 42, result.Counted, 7, 7, 7, 7, "msec", 7 * us},
				notSupported("page-faults"), notSupported("cpu-migrations"), notSupported("cycles")}},
	} {
		res := &result.Stat{Scaled: true, Runs: []result.Run{{ElapsedSec: 0.002, Counts: c.counts}}}
		fs := perfdata.Features{Hostname: "h", Cmdline: []string{"pmc", "stat", "record", "true"}}
		var pipe bytes.Buffer
		file := &memFile{}
		for _, out := range []struct {
			name string
			pipe bool
			read func() (*perfdata.File, error)
		}{
			{"file", false, func() (*perfdata.File, error) { return perfdata.NewFile(bytes.NewReader(file.b), int64(len(file.b))) }},
			{"pipe", true, func() (*perfdata.File, error) { return perfdata.NewPipe(bytes.NewReader(pipe.Bytes())) }},
		} {
			t.Run(c.name+"/"+out.name, func(t *testing.T) {
				var w io.Writer = file
				if out.pipe {
					w = &pipe
				}
				if err := Write(w, out.pipe, res, events, fs); err != nil {
					t.Fatal(err)
				}
				f, err := out.read()
				if err != nil {
					t.Fatal(err)
				}
				r, err := Read(f)
				if err != nil {
					t.Fatal(err)
				}
				if got := rows(r); !reflect.DeepEqual(got, c.want) {
					t.Errorf("counts:\n%+v\nwant\n%+v", got, c.want)
				}
				if !f.Features.Stat || r.Runs[0].ElapsedSec != 0.002 {
					t.Errorf("HEADER_STAT %v, elapsed %v", f.Features.Stat, r.Runs[0].ElapsedSec)
				}
				if title := r.Command[0]; (title == "pipe") != out.pipe {
					t.Errorf("command %q", r.Command)
				}
			})
		}
	}
}

// What cannot be recorded or read is refused in one line.
func TestRefused(t *testing.T) {
	events := []stat.Event{swEvent("task-clock", perfevent.SWTaskClock, 0, "msec", 1e-6)}
	res := &result.Stat{Aggregation: &result.Aggregation{By: "socket"}, Runs: []result.Run{{}}}
	if err := Write(&memFile{}, false, res, events, perfdata.Features{}); err == nil {
		t.Error("per-socket counts were written")
	}
	if err := Write(&memFile{}, false, &result.Stat{}, events, perfdata.Features{}); err == nil {
		t.Error("a result without runs was written")
	}
	// A recording of samples is no stat recording.
	f, err := perfdata.Open(filepath.Join("..", "perfdata", "testdata", "cpuclock.data"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Read(f); err == nil {
		t.Error("a recording of samples read as counts")
	}
	if _, err := os.Stat(filepath.Join("..", "perfdata", "testdata", "stat.data")); err != nil {
		t.Fatal(err)
	}
}

// Read of any bytes: counts or an error of one line, never a panic.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"stat.data", "stat-a.data", "stat-pipe.data"} {
		b, err := os.ReadFile(filepath.Join("..", "perfdata", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := perfdata.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if _, err := Read(pf); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error of several lines: %v", err)
		}
	})
}

package perfdata

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// perf stat record's files (testdata/README.md) decode to what perf report -D prints of
// them, and every stat record encodes back to perf's own bytes.
func TestStatRecords(t *testing.T) {
	for _, c := range []struct {
		file    string
		pipe    bool
		threads []MappedThread
		cpus    []int
		first   Stat // the first STAT record
		round   StatRound
		units   int // EVENT_UPDATE records among the data (a pipe's are in its header)
	}{
		{"stat.data", false, []MappedThread{{PID: 32478}}, []int{-1},
			Stat{ID: 709621, CPU: -1, Value: 654844, Enabled: 654844, Running: 654844}, StatRound{Type: StatRoundFinal, Time: 1752}, 2},
		{"stat-pipe.data", true, []MappedThread{{PID: 32504}}, []int{-1},
			Stat{ID: 709631, CPU: -1, Value: 637031, Enabled: 637031, Running: 637031}, StatRound{Type: StatRoundFinal, Time: 1040860}, 0},
		{"stat-a.data", false, []MappedThread{{PID: -1}}, []int{0, 1}, // a CPU range
			Stat{ID: 709639, CPU: 0, Value: 130348629, Enabled: 130348629, Running: 130348629}, StatRound{Type: StatRoundFinal, Time: 126364904}, 2},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", c.file)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, recs := readAll(t, path)
			if f.Pipe != c.pipe {
				t.Fatalf("pipe %v, want %v", f.Pipe, c.pipe)
			}
			var stats []*Stat
			units := 0
			for _, r := range recs {
				h := r.Header()
				b, typ, err := encodeStat(make([]byte, 8), r)
				if err != nil {
					t.Fatal(err)
				}
				if typ == 0 {
					continue
				}
				if want := raw[h.Offset : h.Offset+int64(h.Size)]; typ != h.Type || !bytes.Equal(b[8:], want[8:]) {
					t.Errorf("%v encodes as type %d\n% x\nperf wrote\n% x", h, typ, b[8:], want[8:])
				}
				switch r := r.(type) {
				case *ThreadMap:
					if !reflect.DeepEqual(r.Threads, c.threads) {
						t.Errorf("thread map %+v, want %+v", r.Threads, c.threads)
					}
				case *CPUMap:
					if !reflect.DeepEqual(r.CPUs, c.cpus) {
						t.Errorf("CPU map %v, want %v", r.CPUs, c.cpus)
					}
				case *StatConfig:
					aggr, _ := r.Term(StatTermAggrMode)
					scale, _ := r.Term(StatTermScale)
					if iv, ok := r.Term(StatTermInterval); aggr != AggrGlobal || scale != 1 || !ok || iv != 0 {
						t.Errorf("stat config %+v, want aggregation global, scaled, no interval", r.Terms)
					}
				case *Stat:
					stats = append(stats, r)
				case *StatRound:
					if r.Type != c.round.Type || r.Time != c.round.Time {
						t.Errorf("round %+v, want %+v", r, c.round)
					}
				case *EventUpdate:
					units++
					if r.ID != c.first.ID || (r.Kind == EventUpdateUnit) != (r.Unit == "msec") || (r.Kind == EventUpdateScale) != (r.Scale == 1e-6) {
						t.Errorf("event update %+v: want task-clock's msec and 1e-6", r)
					}
				}
			}
			if len(stats) != 4 || units != c.units {
				t.Fatalf("%d STAT and %d EVENT_UPDATE records, want 4 and %d", len(stats), units, c.units)
			}
			first := *stats[0]
			first.RecordHeader = RecordHeader{}
			if first != c.first {
				t.Errorf("first STAT %+v, want %+v", first, c.first)
			}
			if i, ok := f.byID[c.first.ID]; !ok || f.Events[i].Name != "task-clock" {
				t.Errorf("the first STAT's id names no task-clock event: %+v", f.Events)
			} else if c.pipe && (f.Events[i].Unit != "msec" || f.Events[i].Scale != 1e-6) {
				t.Errorf("the pipe's EVENT_UPDATE records gave task-clock %q and %g, want msec and 1e-6", f.Events[i].Unit, f.Events[i].Scale)
			}
		})
	}
}

// The CPU map encodings perf writes: a list (with -1, any CPU), a 32- and a 64-bit mask, a
// range; bad ones are errors.
func TestCPUMapEncodings(t *testing.T) {
	f := &File{order: le}
	for _, c := range []struct {
		b    []byte
		want []int
	}{
		{[]byte{0, 0, 2, 0, 0xff, 0xff, 3, 0}, []int{-1, 3}},
		{[]byte{1, 0, 1, 0, 4, 0, 0x05, 0, 0, 0x80}, []int{0, 2, 31}},
		{[]byte{1, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0x80}, []int{1, 63}},
		{[]byte{2, 0, 1, 0, 4, 0, 6, 0}, []int{-1, 4, 5, 6}},
	} {
		got, err := decodeCPUMap(c.b, f)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("% x: %v %v, want %v", c.b, got, err, c.want)
		}
	}
	for _, b := range [][]byte{{0, 0, 9, 0, 1, 0}, {1, 0, 1, 0, 3, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 6, 0, 4, 0}, {7, 0, 0, 0}, {0}} {
		if got, err := decodeCPUMap(b, f); err == nil {
			t.Errorf("% x: %v, want an error", b, got)
		}
	}
}

// A CPU map written reads back the same: consecutive CPUs (after an optional -1) as a range,
// others as a list.
func TestCPUMapRoundTrip(t *testing.T) {
	f := &File{order: le}
	for _, c := range []struct {
		cpus []int
		enc  uint16
	}{{[]int{-1}, cpuMapList}, {[]int{0, 1, 2, 3}, cpuMapRange}, {[]int{-1, 4, 5}, cpuMapRange},
		{[]int{0, 0, 2}, cpuMapList}, {[]int{1, 3}, cpuMapList}, {[]int{7}, cpuMapRange}} {
		b := appendCPUMap(nil, c.cpus)
		got, err := decodeCPUMap(append(b, 0, 0), f)
		if le.Uint16(b) != c.enc || err != nil || !reflect.DeepEqual(got, c.cpus) {
			t.Errorf("%v: encoding %d, read back %v %v; want encoding %d", c.cpus, le.Uint16(b), got, err, c.enc)
		}
	}
}

package perfdata

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// copyFile writes f's events, records and features to path with the Writer.
func copyFile(t *testing.T, f *File, recs []Record, path string) { copyWith(t, f, recs, path, nil) }

// copyWith is copyFile with setup called on the Writer before the records are written.
func copyWith(t *testing.T, f *File, recs []Record, path string, setup func(*Writer)) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w, err := NewWriter(out, f.Events)
	if err != nil {
		t.Fatal(err)
	}
	w.Features = f.Features
	if setup != nil {
		setup(w)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// withoutOffsets forgets where records lay, which a copy changes.
func withoutOffsets(recs []Record) []Record {
	for _, r := range recs {
		v := reflect.ValueOf(r).Elem().FieldByName("RecordHeader")
		v.FieldByName("Offset").SetInt(0)
	}
	return recs
}

func TestWriterRoundTrip(t *testing.T) {
	for _, name := range recorded {
		t.Run(name, func(t *testing.T) {
			f, recs := readAll(t, filepath.Join("testdata", name))
			path := filepath.Join(t.TempDir(), name)
			copyFile(t, f, recs, path)
			g, recs2 := readAll(t, path)
			if !reflect.DeepEqual(withoutOffsets(recs), withoutOffsets(recs2)) {
				t.Fatalf("records differ after a round trip")
			}
			for i := range f.Events {
				if !reflect.DeepEqual(f.Events[i].IDs, g.Events[i].IDs) || f.Events[i].Name != g.Events[i].Name {
					t.Fatalf("event %d: %+v, copy %+v", i, f.Events[i], g.Events[i])
				}
				a, b := f.Events[i].Attr, g.Events[i].Attr
				a.Size, b.Size = 0, 0
				if a != b {
					t.Fatalf("attr %d: %+v, copy %+v", i, a, b)
				}
			}
			fs, gs := f.Features, g.Features
			if fs.Hostname != gs.Hostname || fs.Arch != gs.Arch || fs.NrCPUsOnline != gs.NrCPUsOnline ||
				!reflect.DeepEqual(fs.Cmdline, gs.Cmdline) || !reflect.DeepEqual(fs.BuildIDs, gs.BuildIDs) {
				t.Fatalf("features differ after a round trip")
			}
			if testenv.HaveTool(t, "perf", "perf script's samples of the copy not compared") == "" {
				return
			}
			want, got := scriptSamples(t, filepath.Join("testdata", name)), scriptSamples(t, path)
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(want, got) {
				t.Fatalf("perf script: %d samples in our copy, %d in perf's file", len(got), len(want))
			}
		})
	}
}

// synth writes a recording of the loop workload made up from scratch: its comm and text
// mapping and n samples in wl_spin, of one cpu-clock event.
func synth(t *testing.T, path string, n int, finish bool) (loopPath string) {
	t.Helper()
	loop := testenv.Workload(t, "loop")
	ef, err := elf.Open(loop)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var spin uint64
	for _, s := range syms {
		if s.Name == "wl_spin" {
			spin = s.Value
		}
	}
	var text *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = p
		}
	}
	if spin == 0 || text == nil {
		t.Fatal("no wl_spin or no executable segment in the loop workload")
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	attr := Attr{Type: 1, Config: 0, SamplePeriod: 4000, SampleType: SampleIP | SampleTID | SampleTime | SamplePeriod,
		Flags: FlagDisabled | FlagInherit | FlagMmap | FlagComm | FlagFreq | FlagEnableOnExec | FlagTask | FlagSampleIDAll | FlagMmap2 | FlagCommExec}
	w, err := NewWriter(out, []Event{{Attr: attr, IDs: []uint64{7}, Name: "cpu-clock"}})
	if err != nil {
		t.Fatal(err)
	}
	w.Features = Features{Hostname: "synth", OSRelease: "6.1.0", Version: "pmc", Arch: "x86_64",
		NrCPUsAvailable: 2, NrCPUsOnline: 2, CPUDesc: "a test", Cmdline: []string{"pmc", "record", loop},
		BuildIDs: []BuildID{{Misc: MiscUser, PID: -1, ID: buildID(t, ef), Filename: loop}}}
	const pid = 4242
	at := Origin{PID: pid, TID: pid, Time: 1000}
	page := text.Vaddr &^ 0xfff
	recs := []Record{
		&Comm{RecordHeader{Type: RecordComm, Misc: MiscCommExec}, at, pid, pid, "loop"},
		&Mmap{RecordHeader: RecordHeader{Type: RecordMmap2, Misc: MiscUser}, Origin: at, PID: pid, TID: pid,
			Addr: page, Len: text.Memsz + (text.Vaddr - page), Pgoff: text.Off &^ 0xfff, Prot: 5, Flags: 2, Filename: loop},
	}
	for i := 0; i < n; i++ {
		recs = append(recs, &Sample{RecordHeader: RecordHeader{Misc: MiscUser},
			Origin: Origin{PID: pid, TID: pid, Time: uint64(2000 + i)}, IP: spin + 4, Period: 250000})
	}
	recs = append(recs, &Task{RecordHeader{Type: RecordExit}, Origin{PID: pid, TID: pid, Time: 9999}, pid, 1, pid, 1, 9999})
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if finish {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	} else if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return loop
}

// buildID reads the GNU build id note of ef.
func buildID(t *testing.T, ef *elf.File) []byte {
	sec := ef.Section(".note.gnu.build-id")
	if sec == nil {
		t.Fatal("the loop workload has no build id")
	}
	b, err := sec.Data()
	if err != nil || len(b) < 16 {
		t.Fatalf("build id note: %v", err)
	}
	namesz, descsz := ef.ByteOrder.Uint32(b), ef.ByteOrder.Uint32(b[4:])
	off := 12 + (namesz+3)&^3
	return b[off : off+descsz]
}

func perfReport(t *testing.T, path string, args ...string) string {
	t.Helper()
	cmd := exec.Command("perf", append([]string{"report", "-i", path}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf report -i %s: %v\n%s", path, err, stderr.String())
	}
	return string(out)
}

var topLine = regexp.MustCompile(`(?m)^ +100\.00% +loop +loop +\[\.\] wl_spin$`)

func TestWriterPerfReads(t *testing.T) {
	testenv.Tool(t, "perf")
	for _, finish := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "perf.data")
		synth(t, path, 25, finish)
		if got := len(scriptSamples(t, path)); got != 25 {
			t.Errorf("finished %v: perf script shows %d samples, want 25", finish, got)
		}
		rep := perfReport(t, path, "--stdio")
		if !topLine.MatchString(rep) ||
			!strings.Contains(rep, "# Samples: 25  of event 'cpu-clock") {
			t.Errorf("finished %v: perf report --stdio:\n%s", finish, rep)
		}
		if !finish {
			continue
		}
		hdr := perfReport(t, path, "--header-only")
		for _, want := range []string{"# hostname : synth", "# os release : 6.1.0", "# arch : x86_64",
			"# nrcpus online : 2", "# cpudesc : a test", "# cmdline : pmc record", "# event : name = cpu-clock"} {
			if !strings.Contains(hdr, want) {
				t.Errorf("perf report --header-only lacks %q:\n%s", want, hdr)
			}
		}
	}
}

// A writer cut off before any Flush still left a header: the file reads as empty, not as
// garbage; cut off after a Flush, it has every record flushed.
func TestWriterInterrupted(t *testing.T) {
	var buf seekBuffer
	w, err := NewWriter(&buf, []Event{{Attr: Attr{Type: 1, SampleType: SampleIP, Flags: FlagSampleIDAll}}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFile(bytes.NewReader(buf.b), int64(len(buf.b)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Records().Next(); err != io.EOF {
		t.Fatalf("an empty unfinished file: %v", err)
	}
	for i := 0; i < 3; i++ {
		w.Write(&Sample{IP: uint64(i)})
	}
	w.Flush()
	w.Write(&Sample{IP: 99}) // buffered, never flushed
	f, err = NewFile(bytes.NewReader(buf.b), int64(len(buf.b)))
	if err != nil {
		t.Fatal(err)
	}
	var ips []uint64
	for rs := f.Records(); ; {
		r, err := rs.Next()
		if err != nil {
			break
		}
		ips = append(ips, r.(*Sample).IP)
	}
	if !slices.Equal(ips, []uint64{0, 1, 2}) {
		t.Fatalf("samples %v after an interrupted write", ips)
	}
}

// seekBuffer is an in-memory io.WriteSeeker.
type seekBuffer struct {
	b   []byte
	pos int
}

func (s *seekBuffer) Write(p []byte) (int, error) {
	if need := s.pos + len(p); need > len(s.b) {
		s.b = append(s.b, make([]byte, need-len(s.b))...)
	}
	copy(s.b[s.pos:], p)
	s.pos += len(p)
	return len(p), nil
}

func (s *seekBuffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		s.pos = int(off)
	case io.SeekCurrent:
		s.pos += int(off)
	case io.SeekEnd:
		s.pos = len(s.b) + int(off)
	}
	return int64(s.pos), nil
}

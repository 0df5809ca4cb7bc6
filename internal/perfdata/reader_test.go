package perfdata

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

var recorded = []string{"cpuclock.data", "callgraph.data", "multi.data", "system.data", "attach.data"}

// readAll opens a perf.data file and returns it with its records.
func readAll(t testing.TB, path string) (*File, []Record) {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	rs := f.Records()
	for {
		r, err := rs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, r)
	}
	return f, recs
}

// sampleLines formats samples like `perf script -F pid,tid,event,ip -G`.
func sampleLines(f *File, recs []Record) []string {
	var out []string
	for _, r := range recs {
		if s, ok := r.(*Sample); ok {
			out = append(out, fmt.Sprintf("%d/%d %s: %x", s.PID, s.TID, f.Events[s.Event].Name, s.IP))
		}
	}
	return out
}

// perfScript runs perf script on path; the test skips without perf.
func perfScript(t *testing.T, path string, args ...string) string {
	t.Helper()
	testenv.Tool(t, "perf")
	cmd := exec.Command("perf", append([]string{"script", "-i", path}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perf script -i %s: %v\n%s", path, err, stderr.String())
	}
	return string(out)
}

func scriptSamples(t *testing.T, path string) []string {
	var lines []string
	for _, l := range strings.Split(perfScript(t, path, "-F", "pid,tid,event,ip", "-G"), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			lines = append(lines, strings.Join(f, " "))
		}
	}
	return lines
}

func TestReaderAgreesWithPerfScript(t *testing.T) {
	for _, name := range recorded {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			f, recs := readAll(t, path)
			got := sampleLines(f, recs)
			want := scriptSamples(t, path)
			// perf script orders the samples of several CPUs by time; the file need not be.
			slices.Sort(got)
			slices.Sort(want)
			if len(got) == 0 || len(got) != len(want) {
				t.Fatalf("%d samples, perf script shows %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("sample %d: %q, perf script: %q", i, got[i], want[i])
				}
			}
		})
	}
}

func TestReaderFeatures(t *testing.T) {
	f, recs := readAll(t, filepath.Join("testdata", "callgraph.data"))
	fs := f.Features
	if fs.Hostname == "" || fs.OSRelease == "" || fs.Arch != "x86_64" || fs.NrCPUsOnline != 2 ||
		fs.CPUDesc == "" || !strings.HasPrefix(fs.Version, "6.1") {
		t.Errorf("host features: %+v", fs)
	}
	if len(fs.Cmdline) < 3 || fs.Cmdline[0] != "/usr/bin/perf" || fs.Cmdline[1] != "record" {
		t.Errorf("cmdline %q", fs.Cmdline)
	}
	var loop bool
	for _, b := range fs.BuildIDs {
		if strings.HasSuffix(b.Filename, "/loop") && fmt.Sprintf("%x", b.ID) == "7a8fd21c526567597a78625dcc0947e9ed708a7e" {
			loop = true
		}
	}
	if !loop {
		t.Errorf("no build id for the loop workload in %+v", fs.BuildIDs)
	}
	if len(f.Events) != 1 || f.Events[0].Name != "cpu-clock" || !f.Events[0].Attr.Freq() ||
		f.Events[0].Attr.SamplePeriod != 1000 || f.Events[0].Attr.SampleType&SampleCallchain == 0 {
		t.Errorf("events %+v", f.Events)
	}
	var mmap2, comm, exit, samples int
	for _, r := range recs {
		switch r := r.(type) {
		case *Mmap:
			if r.Type == RecordMmap2 && strings.HasSuffix(r.Filename, "/loop") {
				mmap2++
				if r.Prot&4 == 0 || r.Pgoff == 0 || r.Time == 0 {
					t.Errorf("loop's text mapping %+v %+v", r.Origin, *r)
				}
			}
		case *Comm:
			if r.Comm == "loop" && r.Misc&MiscCommExec != 0 {
				comm++
			}
		case *Task:
			if r.Type == RecordExit {
				exit++
			}
		case *Sample:
			samples++
			if len(r.Callchain) < 2 || r.Callchain[0] < ContextMax || r.Callchain[1] != r.IP && r.Callchain[0] == ContextUser {
				t.Fatalf("callchain %x for ip %x", r.Callchain, r.IP)
			}
		}
	}
	if mmap2 != 1 || comm != 1 || exit != 1 || samples == 0 {
		t.Errorf("mmap2 %d, comm exec %d, exit %d, samples %d", mmap2, comm, exit, samples)
	}
}

func TestReaderMultiEvent(t *testing.T) {
	f, recs := readAll(t, filepath.Join("testdata", "multi.data"))
	names := []string{"cpu-clock", "task-clock", "page-faults"}
	per := make([]int, len(f.Events))
	for _, r := range recs {
		if s, ok := r.(*Sample); ok {
			per[s.Event]++
			if s.ID == 0 || s.Period == 0 {
				t.Fatalf("sample without id or period: %+v", s)
			}
		}
	}
	for i, ev := range f.Events {
		if ev.Name != names[i] || len(ev.IDs) == 0 || per[i] == 0 {
			t.Errorf("event %d: %q ids %v, %d samples", i, ev.Name, ev.IDs, per[i])
		}
	}
}

func TestReaderErrors(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "cpuclock.data"))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := NewFile(bytes.NewReader(good), int64(len(good)))
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"empty":     {nil, "truncated"},
		"garbage":   {bytes.Repeat([]byte("garbage!"), 20), "not a perf.data file"},
		"header":    {good[:60], "truncated"},
		"attrs":     {good[:110], "truncated"},
		"pipe":      {append([]byte("PERFILE2"), 16, 0, 0, 0, 0, 0, 0, 0), "no HEADER_ATTR"},
		"data":      {good[:f.Data.Offset+100], "truncated"},
		"bigendian": {append([]byte("2ELIFREP"), good[8:]...), "big-endian"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewFile(bytes.NewReader(c.b), int64(len(c.b)))
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, c.want)
			}
		})
	}
}

// A record whose size runs past the data section is an error, not a panic or a silent end.
func TestReaderTruncatedRecord(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "cpuclock.data"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFile(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	f.Data.Size -= 4
	rs := f.Records()
	for {
		_, err := rs.Next()
		if err == io.EOF {
			t.Fatal("a cut record ended the data silently")
		}
		if err != nil {
			if !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("error %v, want truncated", err)
			}
			return
		}
	}
}

func FuzzReader(f *testing.F) {
	for _, name := range recorded[:3] {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(corpusFile(f, "here.zstd.data"))                      // compressed records (perf record -z)
	f.Add(corpusFile(f, "here.dwarf.data"))                     // user registers and stacks (--call-graph dwarf)
	for _, name := range []string{"stat.data", "stat-a.data"} { // perf stat record's records
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := NewFile(bytes.NewReader(b), int64(len(b)))
		fuzzRead(t, pf, err)
	})
}

// fuzzRead reads what a fuzz target opened: an error of one line, or records until one.
func fuzzRead(t *testing.T, pf *File, err error) {
	if err != nil {
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("error of several lines: %v", err)
		}
		return
	}
	rs := pf.Records()
	for i := 0; i < 1<<16; i++ {
		if _, err := rs.Next(); err != nil {
			return
		}
	}
}

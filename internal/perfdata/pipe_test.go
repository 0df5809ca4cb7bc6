package perfdata

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// corpus is test/perfcorpus's directory of perf.data files other programs wrote (gzipped).
const corpus = "../../test/perfcorpus/testdata/data"

func corpusFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := testenv.ReadGzip(filepath.Join(corpus, name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// onlyReader hides every method of a reader but Read: a pipe.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(b []byte) (int, error) { return o.r.Read(b) }

func records(t *testing.T, f *File) []Record {
	t.Helper()
	var out []Record
	rs := f.Records()
	for {
		r, err := rs.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// A pipe-mode file reads the same from a stream (NewPipe) as from the file (NewFile), and
// its header records give the events perf names: perf 3.4 (HEADER_ATTR, EVENT_TYPE,
// TRACING_DATA), 4.14 (attrs without ids), 6.8 (HEADER_FEATURE with a group description)
// and 6.1 recorded here (-g).
func TestPipe(t *testing.T) {
	for _, c := range []struct {
		file    string
		events  []string
		samples int
	}{
		{"perf.data.piped.target-3.4", []string{""}, 1414},
		{"perf.data.piped.no_attr_ids-4.14", []string{""}, 7},
		{"perf.data.piped.header_feautres_group_desc-6.8", []string{"cycles:u", "instructions:u"}, 21},
		{"here.pipe-g.data", []string{"cpu-clock"}, 561},
	} {
		t.Run(c.file, func(t *testing.T) {
			b := corpusFile(t, c.file)
			ff, err := NewFile(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			fp, err := NewPipe(onlyReader{bytes.NewReader(b)})
			if err != nil {
				t.Fatal(err)
			}
			if !ff.Pipe || !fp.Pipe {
				t.Errorf("Pipe = %v, %v", ff.Pipe, fp.Pipe)
			}
			var names []string
			for _, ev := range fp.Events {
				names = append(names, ev.Name)
			}
			if strings.Join(names, ",") != strings.Join(c.events, ",") {
				t.Errorf("events %q, want %q", names, c.events)
			}
			rf, rp := records(t, ff), records(t, fp)
			if len(rf) != len(rp) {
				t.Fatalf("%d records from the file, %d from the stream", len(rf), len(rp))
			}
			n := 0
			for i := range rf {
				if rf[i].Header() != rp[i].Header() {
					t.Fatalf("record %d: %v from the file, %v from the stream", i, rf[i].Header(), rp[i].Header())
				}
				if _, ok := rf[i].(*Sample); ok {
					n++
				}
			}
			if n != c.samples {
				t.Errorf("%d samples, want %d (perf script's count)", n, c.samples)
			}
			if r := fp.Records(); r.err == nil {
				t.Error("a stream's records were given twice")
			}
		})
	}
}

// An AUXTRACE record's trace follows it outside the record: skipped, the samples after it
// read (perf report counts 15 cycles samples in this Intel PT recording).
func TestAuxtraceSkipped(t *testing.T) {
	b := corpusFile(t, "perf.data.intel_pt-4.14")
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	aux, samples := 0, 0
	for _, r := range records(t, f) {
		switch r := r.(type) {
		case *Unknown:
			if r.Type == RecordAuxtrace {
				aux++
			}
		case *Sample:
			if f.Events[r.Event].Attr.Type == 0 { // PERF_TYPE_HARDWARE: cycles
				samples++
			}
		}
	}
	if aux == 0 || samples != 15 {
		t.Errorf("%d AUXTRACE records, %d cycles samples; want some and 15", aux, samples)
	}
}

// An empty CPUDESC (perf 3.14 on armv7) is skipped and said so; the file is read (perf
// reports its 700 samples).
func TestOddFeatureSkipped(t *testing.T) {
	b := corpusFile(t, "perf.data.armv7.perf_3.14-3.8")
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Features.Skipped) != 1 || !strings.Contains(f.Features.Skipped[0], "CPUDESC") {
		t.Errorf("skipped %q, want CPUDESC", f.Features.Skipped)
	}
	n := 0
	for _, r := range records(t, f) {
		if _, ok := r.(*Sample); ok {
			n++
		}
	}
	if n != 700 {
		t.Errorf("%d samples, want 700", n)
	}
}

func FuzzPipe(f *testing.F) {
	for _, name := range []string{"perf.data.piped.no_attr_ids-4.14", "perf.data.piped.header_features_aligned-6.12"} {
		f.Add(corpusFile(f, name))
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "stat-pipe.data")); err == nil { // perf stat record -o -
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := NewPipe(bytes.NewReader(b))
		fuzzRead(t, pf, err)
	})
}

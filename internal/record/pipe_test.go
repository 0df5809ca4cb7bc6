package record

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// onlyWriter hides every method of its writer but Write: a pipe, which cannot seek.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

// recordScripted records the same scripted -p session into out: 12 samples on two CPUs,
// then the target's exit.
func recordScripted(t *testing.T, out io.Writer, pipe bool) *Result {
	t.Helper()
	k := newFake(t)
	a := &attached{k: k, gone: make(chan struct{})}
	kern := Kernel{Machine: fakeMachine("100000", 'S'), Open: k.open, Gone: func(int) (<-chan struct{}, error) { return a.gone, nil }}
	var err error
	a.s, err = Start(&Request{Mode: Attach, PIDs: []int{100}, Events: []Event{cpuClock}, Freq: 4000, Pipe: pipe,
		Cmdline: []string{"pmc", "record", "-p", "100"}}, kern, out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.s.Close()
	defer k.checkClosed(t)
	rings := k.rings()
	for i := range 8 {
		rings[0].push(sample(0x400100+uint64(i), 100, 100, uint64(1000+i)))
	}
	for i := range 3 {
		rings[1].push(sample(0x400200, 100, 101, uint64(2000+i)))
	}
	rings[1].push(kernelSample(0xffffffff81000100, 100, 101, 2003)) // the kernel's build-id is listed
	close(a.gone)
	return a.run(t, context.Background())()
}

// records reads every record of f but a pipe's build ids (in its Features once read).
func records(t *testing.T, f *perfdata.File) []perfdata.Record {
	t.Helper()
	var out []perfdata.Record
	for rs := f.Records(); ; {
		r, err := rs.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if u, ok := r.(*perfdata.Unknown); !ok || u.Type != perfdata.RecordHeaderBuildID { // a pipe's last records
			reflect.ValueOf(r).Elem().FieldByName("RecordHeader").FieldByName("Offset").SetInt(0) // the formats' differ
			out = append(out, r)
		}
	}
}

// TestPipeAsFile: the same recording written as a file and in perf's pipe format (to a
// writer that cannot seek) reads back the same: events, records in order, host features
// and build-ids.
func TestPipeAsFile(t *testing.T) {
	file := &memFile{}
	fres := recordScripted(t, file, false)
	var pipe bytes.Buffer
	pres := recordScripted(t, onlyWriter{&pipe}, true)
	if fres.Samples != 12 || pres.Samples != 12 || fres.Bytes != pres.Bytes {
		t.Fatalf("file: %d samples, %d bytes; pipe: %d samples, %d bytes; want 12 each, the same bytes",
			fres.Samples, fres.Bytes, pres.Samples, pres.Bytes)
	}
	ff, err := perfdata.NewFile(bytes.NewReader(file.b), int64(len(file.b)))
	if err != nil {
		t.Fatal(err)
	}
	pf, err := perfdata.NewPipe(bytes.NewReader(pipe.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	frecs, precs := records(t, ff), records(t, pf)
	if len(frecs) < 14 || !reflect.DeepEqual(frecs, precs) {
		t.Errorf("file records %d, pipe records %d: want the same (at least 12 samples, COMM, MMAP)", len(frecs), len(precs))
	}
	if !reflect.DeepEqual(ff.Events, pf.Events) {
		t.Errorf("events: file %+v, pipe %+v", ff.Events, pf.Events)
	}
	fft, pft := ff.Features, pf.Features
	if fft.Hostname != "fakehost" || pft.Hostname != fft.Hostname || !reflect.DeepEqual(pft.Cmdline, fft.Cmdline) ||
		len(fft.BuildIDs) == 0 || !reflect.DeepEqual(pft.BuildIDs, fft.BuildIDs) {
		t.Errorf("features: file %+v, pipe %+v", fft, pft)
	}
}

// TestFileMustSeek: a file recording to a writer that cannot seek is refused before anything
// runs.
func TestFileMustSeek(t *testing.T) {
	k := newFake(t)
	kern := Kernel{Machine: fakeMachine("100000", 'S'), Open: k.open, Gone: func(int) (<-chan struct{}, error) { return make(chan struct{}), nil }}
	_, err := Start(&Request{Mode: Attach, PIDs: []int{100}, Events: []Event{cpuClock}, Freq: 4000}, kern, onlyWriter{io.Discard})
	if err == nil {
		t.Fatal("Start wrote a perf.data file to a writer that cannot seek")
	}
	k.checkClosed(t)
}

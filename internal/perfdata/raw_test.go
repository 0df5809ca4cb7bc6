package perfdata

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRawDecoderMatchesReader: every record of perf's own recordings, handed to the
// RawDecoder one by one as a ring would hand them, decodes to what the file reader reads.
func TestRawDecoderMatchesReader(t *testing.T) {
	for _, name := range recorded {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			f, recs := readAll(t, path)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data := raw[f.Data.Offset : f.Data.Offset+f.Data.Size]
			d, err := NewRawDecoder(f.Events)
			if err != nil {
				t.Fatal(err)
			}
			var got []Record
			for len(data) > 0 {
				n := int(binary.LittleEndian.Uint16(data[6:]))
				r, err := d.Decode(data[:n])
				if err != nil {
					t.Fatalf("record %d: %v", len(got), err)
				}
				if th, ok := r.(*Throttle); ok { // the reader keeps these as Unknown
					r = &Unknown{th.RecordHeader, append([]byte(nil), data[8:n]...)}
				}
				got = append(got, r)
				data = data[n:]
			}
			if !reflect.DeepEqual(withoutOffsets(got), withoutOffsets(recs)) {
				t.Fatalf("the decoder's %d records differ from the reader's %d", len(got), len(recs))
			}
		})
	}
}

// TestRawDecoderThrottle: a THROTTLE record with its sample_id trailer, as the kernel lays
// it out, and records whose size is wrong.
func TestRawDecoderThrottle(t *testing.T) {
	f, _ := readAll(t, filepath.Join("testdata", "cpuclock.data"))
	d, err := NewRawDecoder(f.Events)
	if err != nil {
		t.Fatal(err)
	}
	// cpu-clock, sample_type IP|TID|TIME|PERIOD (+ID or IDENTIFIER when recorded so), sample_id_all.
	ne := binary.NativeEndian
	rec := ne.AppendUint32(nil, RecordThrottle)
	rec = ne.AppendUint16(rec, 0)
	rec = ne.AppendUint16(rec, 0)
	rec = ne.AppendUint64(rec, 123456789) // time
	rec = ne.AppendUint64(rec, 42)        // id
	rec = ne.AppendUint64(rec, 43)        // stream id
	rec = ne.AppendUint32(rec, 100)       // trailer: pid, tid
	rec = ne.AppendUint32(rec, 101)
	rec = ne.AppendUint64(rec, 123456789) // trailer: time
	for _, bit := range []uint64{SampleID, SampleStreamID, SampleCPU, SampleIdentifier} {
		if f.Events[0].Attr.SampleType&bit != 0 {
			t.Fatalf("this test lays out no %#x in the trailer", bit)
		}
	}
	ne.PutUint16(rec[6:], uint16(len(rec)))
	r, err := d.Decode(rec)
	if err != nil {
		t.Fatal(err)
	}
	th, ok := r.(*Throttle)
	if !ok || th.Time != 123456789 || th.ID != 42 || th.StreamID != 43 || th.PID != 100 || th.TID != 101 || th.Origin.Time != 123456789 {
		t.Fatalf("decoded %#v", r)
	}
	if _, err := d.Decode(rec[:len(rec)-8]); err == nil {
		t.Fatal("a record shorter than its size decoded")
	}
	ne.PutUint16(rec[6:], 4)
	if _, err := d.Decode(rec[:8]); err == nil {
		t.Fatal("a record of size 4 decoded")
	}
}

// FuzzRawDecoder: any bytes a ring hands over decode or fail with one line, never panic.
func FuzzRawDecoder(f *testing.F) {
	pf, _ := readAll(f, filepath.Join("testdata", "multi.data"))
	raw, err := os.ReadFile(filepath.Join("testdata", "multi.data"))
	if err != nil {
		f.Fatal(err)
	}
	data := raw[pf.Data.Offset : pf.Data.Offset+pf.Data.Size]
	for i := 0; i < 20 && len(data) >= 8; i++ {
		n := int(binary.LittleEndian.Uint16(data[6:]))
		f.Add(append([]byte(nil), data[:n]...))
		data = data[n:]
	}
	d, err := NewRawDecoder(pf.Events)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		if _, err := d.Decode(rec); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error of several lines: %v", err)
		}
	})
}

package perfdata

import (
	"bytes"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pmc-tools/pmc/internal/testenv"
)

// dwarfRecordings are perf's and pmc's --call-graph dwarf recordings of test/dwarfcorpus.
var dwarfRecordings = []string{"here.callchain.data", "here.short.data", "here.pmc.data"}

// TestUserStacks: every sample of a --call-graph dwarf recording has the user registers of
// its attribute's mask (the sampled IP among them: a user-mode sample's own IP) and a
// stack copy of the size it says it filled, and the writer writes pmc's back as they were.
func TestUserStacks(t *testing.T) {
	for _, name := range dwarfRecordings {
		t.Run(name, func(t *testing.T) {
			data, err := testenv.ReadGzip(filepath.Join("../../test/dwarfcorpus/testdata/data", name+".gz"))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, recs := readAll(t, path)
			attr := f.Events[0].Attr
			if attr.SampleRegsUser != 0xff0fff || attr.SampleStackUser == 0 {
				t.Fatalf("sample_regs_user %#x, sample_stack_user %d", attr.SampleRegsUser, attr.SampleStackUser)
			}
			n := 0
			for _, r := range recs {
				s, ok := r.(*Sample)
				if !ok {
					continue
				}
				n++
				u := s.User
				switch {
				case u == nil || u.ABI != RegsABI64:
					t.Fatalf("sample at %d: user registers %+v", s.Offset, u)
				case len(u.Regs) != bits.OnesCount64(attr.SampleRegsUser):
					t.Fatalf("sample at %d: %d registers", s.Offset, len(u.Regs))
				case s.CPUMode() == MiscUser && u.Regs[8] != s.IP: // perf's IP is register 8
					t.Fatalf("sample at %d: IP %#x, the registers' %#x", s.Offset, s.IP, u.Regs[8])
				case u.Size != uint64(attr.SampleStackUser) || uint64(len(u.Stack)) != u.Dyn || u.Short():
					t.Fatalf("sample at %d: stack of %d bytes, size %d, dyn %d", s.Offset, len(u.Stack), u.Size, u.Dyn)
				}
			}
			if n == 0 {
				t.Fatal("no samples")
			}
			if attr.SampleType&^sampleTypeDecoded != 0 {
				return // perf's carry fields the writer does not write (DATA_SRC)
			}
			copied := filepath.Join(t.TempDir(), "copy")
			copyFile(t, f, recs, copied)
			_, recs2 := readAll(t, copied)
			if !reflect.DeepEqual(withoutOffsets(recs), withoutOffsets(recs2)) {
				t.Fatal("records differ after a round trip")
			}
		})
	}
}

// TestShortStack: a stack copy that claims more than its record holds (dyn_size above
// size: perf rejects the whole file) keeps the bytes there are and says it is short; a
// size past the record is an error of the record alone.
func TestShortStack(t *testing.T) {
	ev := Event{Attr: Attr{SampleType: SampleIP | SampleTID | SampleRegsUser | SampleStackUser, SampleRegsUser: 0x3}}
	rec := func(size, dyn uint64, stack int) []byte {
		var b []byte
		b = le.AppendUint32(le.AppendUint16(le.AppendUint16(le.AppendUint32(b, RecordSample), 2), 0), 0)[:8]
		b = le.AppendUint64(b, 0x1000)                                            // ip
		b = le.AppendUint32(le.AppendUint32(b, 7), 7)                             // pid, tid
		b = le.AppendUint64(le.AppendUint64(le.AppendUint64(b, RegsABI64), 1), 2) // abi, 2 registers
		b = le.AppendUint64(b, size)
		b = append(b, bytes.Repeat([]byte{0xab}, stack)...)
		b = le.AppendUint64(b, dyn)
		le.PutUint16(b[6:], uint16(len(b)))
		return b
	}
	d, err := NewRawDecoder([]Event{ev})
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Decode(rec(16, 64, 16))
	if err != nil {
		t.Fatal(err)
	}
	if u := r.(*Sample).User; !u.Short() || len(u.Stack) != 16 {
		t.Errorf("a copy claiming 64 of 16 bytes: %d bytes, short %v", len(u.Stack), u.Short())
	}
	if _, err := d.Decode(rec(1024, 8, 16)); err == nil {
		t.Error("a copy of 1024 bytes in a record of 16: no error")
	}
}

package top

import (
	"encoding/binary"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// TestRecordTime: a sample's time sits after its IP, PID and TID; another record's in the
// sample_id at its end (TID, TIME, CPU), which is what orders a fork on one CPU's ring before
// the exec on another's.
func TestRecordTime(t *testing.T) {
	rec := func(typ uint32, body []byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, typ)
		b = binary.LittleEndian.AppendUint16(b, 0)
		b = binary.LittleEndian.AppendUint16(b, uint16(8+len(body)))
		return append(b, body...)
	}
	u64 := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		return b
	}
	// IP, pid|tid, time, cpu, period
	sample := rec(perfdata.RecordSample, u64(0x401000, 7|7<<32, 1234, 1, 250000))
	// pid, tid, "loop\0\0\0\0", then sample_id: pid|tid, time, cpu
	comm := rec(perfdata.RecordComm, append(append(u64(7|7<<32), []byte("loop\x00\x00\x00\x00")...), u64(7|7<<32, 999, 0)...))
	for _, c := range []struct {
		name string
		rec  []byte
		want uint64
		ok   bool
	}{
		{"sample", sample, 1234, true},
		{"comm", comm, 999, true},
		{"short", comm[:20], 0, false},
	} {
		if got, ok := recordTime(c.rec); got != c.want || ok != c.ok {
			t.Errorf("%s: time %d, %v; want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

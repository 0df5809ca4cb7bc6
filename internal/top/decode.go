package top

import (
	"encoding/binary"
	"errors"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// decoder reads the records of top's own rings: samples of the layout sampleType gives
// (IP, TID, TIME, CPU, PERIOD and, with -g, CALLCHAIN), and the task records (MMAP, MMAP2,
// COMM, FORK, EXIT, LOST, LOST_SAMPLES), whose sample_id trailers it ignores. It reuses one
// record of each kind: what it returns is valid until the next call.
type decoder struct {
	chain  bool
	sample perfdata.Sample
	mmap   perfdata.Mmap
	comm   perfdata.Comm
	task   perfdata.Task
	lost   perfdata.Lost
	lostS  perfdata.LostSamples
	ips    []uint64
}

var errShort = errors.New("record too short")

var le = binary.LittleEndian

// decode returns the record in rec (header included), nil for a kind top does not use.
func (d *decoder) decode(rec []byte) (perfdata.Record, error) {
	if len(rec) < 8 {
		return nil, errShort
	}
	h := perfdata.RecordHeader{Type: le.Uint32(rec), Misc: le.Uint16(rec[4:]), Size: le.Uint16(rec[6:])}
	b := rec[8:]
	need := func(n int) bool { return len(b) >= n }
	switch h.Type {
	case perfdata.RecordSample:
		if !need(32) {
			return nil, errShort
		}
		s := &d.sample
		*s = perfdata.Sample{RecordHeader: h, IP: le.Uint64(b)}
		s.PID, s.TID = le.Uint32(b[8:]), le.Uint32(b[12:])
		s.Time = le.Uint64(b[16:])
		s.CPU = le.Uint32(b[24:])
		b = b[32:]
		if !need(8) {
			return nil, errShort
		}
		s.Period, b = le.Uint64(b), b[8:]
		if d.chain {
			if !need(8) {
				return nil, errShort
			}
			n := le.Uint64(b)
			b = b[8:]
			if n > uint64(len(b)/8) {
				return nil, errShort
			}
			d.ips = d.ips[:0]
			for i := uint64(0); i < n; i++ {
				d.ips = append(d.ips, le.Uint64(b[8*i:]))
			}
			s.Callchain = d.ips
		}
		return s, nil
	case perfdata.RecordMmap, perfdata.RecordMmap2:
		if !need(32) {
			return nil, errShort
		}
		m := &d.mmap
		*m = perfdata.Mmap{RecordHeader: h, PID: le.Uint32(b), TID: le.Uint32(b[4:]), Addr: le.Uint64(b[8:]),
			Len: le.Uint64(b[16:]), Pgoff: le.Uint64(b[24:])}
		b = b[32:]
		if h.Type == perfdata.RecordMmap2 {
			if !need(32) {
				return nil, errShort
			}
			if h.Misc&perfdata.MiscMmapBuildID == 0 {
				m.Maj, m.Min, m.Ino, m.InoGen = le.Uint32(b), le.Uint32(b[4:]), le.Uint64(b[8:]), le.Uint64(b[16:])
			}
			m.Prot, m.Flags = le.Uint32(b[24:]), le.Uint32(b[28:])
			b = b[32:]
		}
		m.Filename = cstring(b)
		return m, nil
	case perfdata.RecordComm:
		if !need(8) {
			return nil, errShort
		}
		c := &d.comm
		*c = perfdata.Comm{RecordHeader: h, PID: le.Uint32(b), TID: le.Uint32(b[4:]), Comm: cstring(b[8:])}
		return c, nil
	case perfdata.RecordFork, perfdata.RecordExit:
		if !need(16) {
			return nil, errShort
		}
		t := &d.task
		*t = perfdata.Task{RecordHeader: h, PID: le.Uint32(b), PPID: le.Uint32(b[4:]), TID: le.Uint32(b[8:]), PTID: le.Uint32(b[12:])}
		return t, nil
	case perfdata.RecordLost:
		if !need(16) {
			return nil, errShort
		}
		d.lost = perfdata.Lost{RecordHeader: h, LostID: le.Uint64(b), Lost: le.Uint64(b[8:])}
		return &d.lost, nil
	case perfdata.RecordLostSamples:
		if !need(8) {
			return nil, errShort
		}
		d.lostS = perfdata.LostSamples{RecordHeader: h, Lost: le.Uint64(b)}
		return &d.lostS, nil
	}
	return nil, nil
}

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// recordTime is a ring record's time: a sample's own (after IP, PID and TID), another
// record's from the sample_id its event appends (sample_id_all with TID, TIME and CPU: the
// time is 16 bytes before the end). ok is false for a record too short to hold one.
func recordTime(rec []byte) (t uint64, ok bool) {
	if len(rec) < 8 {
		return 0, false
	}
	if le.Uint32(rec) == perfdata.RecordSample {
		if len(rec) < 32 {
			return 0, false
		}
		return le.Uint64(rec[24:]), true
	}
	if len(rec) < 8+24 {
		return 0, false
	}
	return le.Uint64(rec[len(rec)-16:]), true
}

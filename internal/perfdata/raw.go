package perfdata

import (
	"encoding/binary"
	"fmt"
)

// Throttle is a PERF_RECORD_THROTTLE or PERF_RECORD_UNTHROTTLE (Type says which): the
// kernel stopped (or resumed) sampling the event with ID because its interrupts took too
// long (kernel.perf_event_max_sample_rate, perf_cpu_time_max_percent).
type Throttle struct {
	RecordHeader
	Origin
	Time, ID, StreamID uint64
}

// RawDecoder decodes records as the kernel writes them into a sampling counter's ring
// buffer (in the machine's byte order), laid out by the attributes of the events that
// share the ring. It is the reader's decoding, without a file.
type RawDecoder struct {
	f File
	a alloc
}

// NewRawDecoder decodes the records of events (their attributes and kernel ids).
func NewRawDecoder(events []Event) (*RawDecoder, error) {
	if len(events) == 0 {
		return nil, fmt.Errorf("ring records: no events")
	}
	d := &RawDecoder{f: File{Events: events, order: binary.NativeEndian, byID: map[uint64]int{}}}
	if err := d.f.setup(); err != nil {
		return nil, err
	}
	return d, nil
}

// RawHeader reads the perf_event_header at the start of rec and checks that rec holds the
// whole record.
func RawHeader(rec []byte) (RecordHeader, error) {
	if len(rec) < 8 {
		return RecordHeader{}, fmt.Errorf("ring record of %d bytes: shorter than its header", len(rec))
	}
	o := binary.NativeEndian
	h := RecordHeader{Type: o.Uint32(rec), Misc: o.Uint16(rec[4:]), Size: o.Uint16(rec[6:])}
	if int(h.Size) != len(rec) || h.Size < 8 {
		return h, fmt.Errorf("ring record of %d bytes says it has %d", len(rec), h.Size)
	}
	return h, nil
}

// Decode decodes one ring record, header included: *Sample, *Mmap, *Comm, *Task, *Lost,
// *LostSamples, *Throttle, else *Unknown. The result keeps no reference to rec.
func (d *RawDecoder) Decode(rec []byte) (Record, error) {
	h, err := RawHeader(rec)
	if err != nil {
		return nil, err
	}
	body := rec[8:]
	if h.Type != RecordThrottle && h.Type != RecordUnthrottle {
		r, err := d.f.decode(h, body, &d.a)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", h, err)
		}
		return r, nil
	}
	sid, body, err := d.f.trailer(body)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", h, err)
	}
	dec := &dec{b: body, o: d.f.order}
	t := &Throttle{RecordHeader: h, Origin: sid, Time: dec.u64(), ID: dec.u64(), StreamID: dec.u64()}
	if dec.err != nil {
		return nil, fmt.Errorf("%v: %w", h, dec.err)
	}
	return t, nil
}

// Recycle gives a Sample that Decode returned back, for a later record: the caller must not
// use it (or its slices) again. A decoder whose samples are recycled allocates none of its
// own (one Decode at a time).
func (d *RawDecoder) Recycle(s *Sample) {
	if len(d.a.free) < 1<<10 {
		d.a.free = append(d.a.free, s)
	}
}

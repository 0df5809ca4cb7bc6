package perfdata

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
)

// idLayout says where a record's event id is: in a sample, the word index after the header
// (0: a trailer without an id, -1: no trailer). in a non-sample record with sample_id_all, the word index from the end
// (0: a trailer without an id, -1: no trailer).
type idLayout struct{ sample, trailer int }

func layoutOf(evs []Event) (idLayout, error) {
	var l idLayout
	for i, ev := range evs {
		t := ev.Attr.SampleType
		cur := idLayout{-1, 0}
		switch {
		case t&SampleIdentifier != 0:
			cur = idLayout{0, 1}
		case t&SampleID != 0:
			cur.sample = bits.OnesCount64(t & (SampleIP | SampleTID | SampleTime | SampleAddr))
			cur.trailer = 1 + bits.OnesCount64(t&(SampleStreamID|SampleCPU))
		}
		if !ev.Attr.SampleIDAll() {
			cur.trailer = -1
		}
		if i == 0 {
			l = cur
			continue
		}
		if cur != l {
			return l, fmt.Errorf("%w: events %d and 0 place their sample ids differently (no PERF_SAMPLE_IDENTIFIER)", ErrUnsupported, i)
		}
	}
	if len(evs) > 1 && l.sample < 0 {
		return l, fmt.Errorf("%w: %d events but samples carry no event id", errNoSampleID, len(evs))
	}
	return l, nil
}

// errNoSampleID: samples could not say their event. A file without samples (perf stat
// record's, whose pipe attributes have no sample type) is still read.
var errNoSampleID = &FormatError{Msg: "no event id in samples"}

// Records reads the data section's records in file order.
type Records struct {
	f   *File
	br  *bufio.Reader
	off int64 // file offset of the next record
	end int64
	err error
	a   alloc
	z   inflater // perf record -z's compressed records
	// zrecords counts the COMPRESSED records read (Next returns what they hold).
	zrecords int
}

// alloc hands out Samples and callchains: recycled ones (Records.Recycle) first, else cut
// from larger arrays, so a record costs no allocation of its own. Each keeps its own
// memory (a new callchain's capacity is its length).
type alloc struct {
	samples []Sample
	words   []uint64
	free    []*Sample
	chain   []uint64 // the callchain of the Sample sample last recycled
	// UserStacks given back with their samples, and the buffers of the one in use.
	freeUsers []*UserStack
	curRegs   []uint64
	curStack  []byte
}

func (a *alloc) sample() *Sample {
	if a == nil {
		return &Sample{}
	}
	if n := len(a.free); n > 0 {
		s := a.free[n-1]
		a.free = a.free[:n-1]
		a.chain = s.Callchain[:0]
		*s = Sample{}
		return s
	}
	if len(a.samples) == 0 {
		a.samples = make([]Sample, 256)
	}
	s := &a.samples[0]
	a.samples = a.samples[1:]
	return s
}

// uint64s returns n words for the sample sample returned last.
func (a *alloc) uint64s(n int) []uint64 {
	if a == nil {
		return make([]uint64, n)
	}
	if buf := a.chain; cap(buf) >= n {
		a.chain = nil
		return buf[:n]
	}
	if n > 1<<10 {
		return make([]uint64, n)
	}
	n2 := (n + 15) &^ 15 // room for a slightly longer chain when recycled
	if len(a.words) < n2 {
		a.words = make([]uint64, 1<<14)
	}
	w := a.words[:n:n2]
	a.words = a.words[n2:]
	return w
}

// Recycle gives a Sample that Next returned back, with its callchain, for a later record:
// the caller must not use it (or its slices) again.
func (rs *Records) Recycle(s *Sample) {
	if f := rs.a.free; len(f) < 1<<16 {
		if len(f) == cap(f) {
			f = slices.Grow(f, max(len(f), 64)) // doubling: no copy after copy of a long list
		}
		rs.a.free = append(f, s)
	}
	rs.a.recycleUser(s.User)
}

// Records returns a reader of the data section. A stream's (NewPipe) is read once: a
// second reader returns an error.
func (f *File) Records() *Records {
	if f.stream != nil {
		rs := &Records{f: f, br: f.stream, off: int64(f.Data.Offset), end: math.MaxInt64}
		f.stream = nil
		return rs
	}
	if f.r == nil {
		return &Records{f: f, err: errors.New("perf.data: a pipe's records are read once")}
	}
	sr := io.NewSectionReader(f.r, int64(f.Data.Offset), int64(f.Data.Size))
	return &Records{f: f, br: bufio.NewReaderSize(sr, 1<<16), off: int64(f.Data.Offset),
		end: int64(f.Data.Offset + f.Data.Size)}
}

// Next returns the next record, io.EOF after the last. In a file whose writer did not
// finish (File.Unfinished) or a pipe (File.Pipe), a record cut short by the end of the
// file ends the data too.
// The returned record's slices are its own (a Sample's until it is given to Recycle).
func (rs *Records) Next() (Record, error) {
	if rs.err != nil {
		return nil, rs.err
	}
	rec, err := rs.next()
	if err != nil {
		rs.err = err
		rs.z.stop()
	}
	return rec, err
}

func (rs *Records) next() (Record, error) {
	for {
		r, err := rs.nextRecord()
		if r != nil || err != nil {
			return r, err
		}
	}
}

// nextRecord returns the next record, or nil and no error after a COMPRESSED record whose
// contents are not a whole record yet.
func (rs *Records) nextRecord() (Record, error) {
	o := rs.f.order
	if rec, err := rs.z.next(o); err != nil || rec != nil {
		if err != nil {
			return nil, formatErr("record type %d at %d: %v", RecordCompressed, rs.z.at, err)
		}
		hdr := RecordHeader{Type: o.Uint32(rec), Misc: o.Uint16(rec[4:]), Size: o.Uint16(rec[6:]), Offset: rs.z.at}
		r, err := rs.f.decode(hdr, rec[8:], &rs.a)
		if err != nil {
			return nil, formatErr("%v (compressed): %v", hdr, err)
		}
		return r, nil
	}
	if rs.off >= rs.end {
		if rs.z.leftover() {
			return nil, formatErr("the compressed records end inside a record: the file is truncated")
		}
		return nil, io.EOF
	}
	// The record is decoded where the buffered reader holds it (Peek, then Discard): a
	// record is at most 64 KiB, the reader's size, and decode copies what it keeps.
	h, err := rs.br.Peek(8)
	if len(h) < 8 {
		if rs.f.openEnded() && (len(h) == 0 || errors.Is(err, io.EOF)) {
			return nil, io.EOF
		}
		return nil, formatErr("record header at %d: the data section is truncated", rs.off)
	}
	hdr := RecordHeader{Type: o.Uint32(h), Misc: o.Uint16(h[4:]), Size: o.Uint16(h[6:]), Offset: rs.off}
	if hdr.Size < 8 || hdr.Size%8 != 0 && hdr.Type < 64 {
		if rs.f.Unfinished && hdr.Type == 0 && hdr.Size == 0 {
			return nil, io.EOF // zeroes past the last record of an unfinished file
		}
		return nil, formatErr("%v: impossible size", hdr)
	}
	rec, _ := rs.br.Peek(int(hdr.Size))
	if len(rec) < int(hdr.Size) {
		if rs.f.openEnded() {
			return nil, io.EOF
		}
		return nil, formatErr("%v: the data section is truncated", hdr)
	}
	body := rec[8:]
	rs.off += int64(hdr.Size)
	if hdr.Type == RecordCompressed {
		rs.zrecords++
		err := rs.z.feed(body, hdr.Offset)
		rs.br.Discard(int(hdr.Size))
		if err != nil {
			return nil, formatErr("%v: %v", hdr, err)
		}
		return nil, nil
	}
	if rs.f.Pipe && hdr.Type == RecordHeaderBuildID {
		rs.f.pipeRecord(hdr.Type, rec) // a pipe's build ids may come last: Features has them once read
	}
	skip := payload(hdr, body, rs.f.order)
	r, err := rs.f.decode(hdr, body, &rs.a)
	rs.br.Discard(int(hdr.Size))
	if err != nil {
		return nil, formatErr("%v: %v", hdr, err)
	}
	if skip > 0 {
		// The payload is not decoded: passed over, whatever its size.
		n, err := rs.br.Discard(int(min(skip, math.MaxInt32)))
		rs.off += int64(n)
		if uint64(n) != skip && !rs.f.openEnded() {
			return nil, formatErr("%v: its %d bytes of payload run past the end of the data (%v)", hdr, skip, err)
		}
	}
	return r, nil
}

// payload is the size of what follows a record outside it: an AUXTRACE record's trace, a
// pipe's tracing data (8-byte aligned).
func payload(hdr RecordHeader, body []byte, o binary.ByteOrder) uint64 {
	switch {
	case hdr.Type == RecordAuxtrace && len(body) >= 8:
		return o.Uint64(body)
	case hdr.Type == RecordHeaderTracingData && len(body) >= 4:
		return (uint64(o.Uint32(body)) + 7) &^ 7
	}
	return 0
}

// openEnded says the data runs to the end of the file or stream, wherever that is.
func (f *File) openEnded() bool { return f.Unfinished || f.Pipe }

// dec reads words from a record body.
type dec struct {
	b   []byte
	o   binary.ByteOrder
	err error
}

var errShort = errors.New("record too short for its fields")

func (d *dec) u64() uint64 {
	if len(d.b) < 8 {
		d.err = errShort
		d.b = nil
		return 0
	}
	v := d.o.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// u32s reads two u32 in one word.
func (d *dec) u32s() (uint32, uint32) {
	if len(d.b) < 8 {
		d.err = errShort
		d.b = nil
		return 0, 0
	}
	a, b := d.o.Uint32(d.b), d.o.Uint32(d.b[4:])
	d.b = d.b[8:]
	return a, b
}

func (d *dec) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.err = errShort
		d.b = nil
		return nil
	}
	v := append([]byte(nil), d.b[:n]...)
	d.b = d.b[n:]
	return v
}

// eventOf finds the event index of a record whose id is id.
func (f *File) eventOf(id uint64) (int, error) {
	if len(f.Events) == 1 {
		return 0, nil
	}
	i, ok := f.byID[id]
	if !ok {
		return 0, fmt.Errorf("event id %d belongs to no event of the file", id)
	}
	return i, nil
}

func (f *File) decode(hdr RecordHeader, body []byte, a *alloc) (Record, error) {
	if hdr.Type == RecordSample {
		return f.decodeSample(hdr, body, a)
	}
	if hdr.Type >= 64 {
		if hdr.Type == RecordFinishedRound {
			return &FinishedRound{hdr}, nil
		}
		if r, ok, err := f.decodeStatRecord(hdr, body); ok {
			return r, err
		}
		return &Unknown{hdr, append([]byte(nil), body...)}, nil
	}
	switch hdr.Type {
	case RecordMmap, RecordMmap2, RecordComm, RecordExit, RecordFork, RecordLost, RecordLostSamples:
	default:
		return &Unknown{hdr, append([]byte(nil), body...)}, nil
	}
	sid, body, err := f.trailer(body)
	if err != nil {
		return nil, err
	}
	d := &dec{b: body, o: f.order}
	var rec Record
	switch hdr.Type {
	case RecordMmap, RecordMmap2:
		m := &Mmap{RecordHeader: hdr, Origin: sid}
		m.PID, m.TID = d.u32s()
		m.Addr, m.Len, m.Pgoff = d.u64(), d.u64(), d.u64()
		if hdr.Type == RecordMmap2 {
			if hdr.Misc&MiscMmapBuildID != 0 {
				b := d.bytes(24)
				if b != nil && int(b[0]) <= 20 {
					m.BuildID = b[4 : 4+int(b[0])]
				}
			} else {
				m.Maj, m.Min = d.u32s()
				m.Ino, m.InoGen = d.u64(), d.u64()
			}
			m.Prot, m.Flags = d.u32s()
		}
		m.Filename = cstring(d.b)
		rec = m
	case RecordComm:
		c := &Comm{RecordHeader: hdr, Origin: sid}
		c.PID, c.TID = d.u32s()
		c.Comm = cstring(d.b)
		rec = c
	case RecordFork, RecordExit:
		t := &Task{RecordHeader: hdr, Origin: sid}
		t.PID, t.PPID = d.u32s()
		t.TID, t.PTID = d.u32s()
		t.Time = d.u64()
		rec = t
	case RecordLost:
		l := &Lost{RecordHeader: hdr, Origin: sid}
		l.LostID, l.Lost = d.u64(), d.u64()
		rec = l
	case RecordLostSamples:
		rec = &LostSamples{RecordHeader: hdr, Origin: sid, Lost: d.u64()}
	}
	return rec, d.err
}

// trailer decodes the sample_id trailer at the end of body and returns the body without it.
func (f *File) trailer(body []byte) (Origin, []byte, error) {
	var sid Origin
	if f.layout.trailer < 0 {
		return sid, body, nil
	}
	if f.layout.trailer > 0 {
		n := len(body) / 8
		if n < f.layout.trailer {
			return sid, nil, errShort
		}
		// perf's synthesized records (the kernel's map, existing threads) may carry id 0:
		// like perf, they are taken as the first event's.
		if ev, err := f.eventOf(f.order.Uint64(body[8*(n-f.layout.trailer):])); err == nil {
			sid.Event = ev
		}
	}
	t := f.Events[sid.Event].Attr.SampleType & sampleIDAllFields
	size := 8 * bits.OnesCount64(t)
	if size > len(body) {
		return sid, nil, errShort
	}
	d := &dec{b: body[len(body)-size:], o: f.order}
	if t&SampleTID != 0 {
		sid.PID, sid.TID = d.u32s()
	}
	if t&SampleTime != 0 {
		sid.Time = d.u64()
	}
	if t&SampleID != 0 {
		sid.ID = d.u64()
	}
	if t&SampleStreamID != 0 {
		sid.StreamID = d.u64()
	}
	if t&SampleCPU != 0 {
		sid.CPU, _ = d.u32s()
	}
	if t&SampleIdentifier != 0 {
		sid.ID = d.u64()
	}
	return sid, body[:len(body)-size], d.err
}

const maxCallchain = 1 << 13

func (f *File) decodeSample(hdr RecordHeader, body []byte, a *alloc) (Record, error) {
	if f.sampleErr != nil {
		return nil, f.sampleErr
	}
	s := a.sample()
	s.RecordHeader = hdr
	if f.layout.sample >= 0 {
		if len(body) < 8*(f.layout.sample+1) {
			return nil, errShort
		}
		ev, err := f.eventOf(f.order.Uint64(body[8*f.layout.sample:]))
		if err != nil {
			return nil, err
		}
		s.Event = ev
	}
	attr := f.Events[s.Event].Attr
	t := attr.SampleType
	d := &dec{b: body, o: f.order}
	if t&SampleIdentifier != 0 {
		s.ID = d.u64()
	}
	if t&SampleIP != 0 {
		s.IP = d.u64()
	}
	if t&SampleTID != 0 {
		s.PID, s.TID = d.u32s()
	}
	if t&SampleTime != 0 {
		s.Time = d.u64()
	}
	if t&SampleAddr != 0 {
		s.Addr = d.u64()
	}
	if t&SampleID != 0 {
		s.ID = d.u64()
	}
	if t&SampleStreamID != 0 {
		s.StreamID = d.u64()
	}
	if t&SampleCPU != 0 {
		s.CPU, _ = d.u32s()
	}
	if t&SamplePeriod != 0 {
		s.Period = d.u64()
	}
	if t&SampleRead != 0 {
		s.Read = d.read(attr.ReadFormat)
	}
	if t&SampleCallchain != 0 {
		n := d.u64()
		if n > maxCallchain || n > uint64(len(d.b))/8 {
			return nil, fmt.Errorf("callchain of %d entries in %d bytes", n, len(d.b))
		}
		s.Callchain = a.uint64s(int(n))
		for i := range s.Callchain {
			s.Callchain[i] = f.order.Uint64(d.b[8*i:])
		}
		d.b = d.b[8*n:]
	}
	if t&SampleRaw != 0 {
		if len(d.b) < 4 {
			return nil, errShort
		}
		n := f.order.Uint32(d.b)
		d.b = d.b[4:]
		s.Raw = d.bytes(uint64(n))
	}
	if t&SampleBranchStack != 0 {
		n := d.u64()
		if attr.BranchSampleType&BranchHWIndex != 0 {
			d.u64()
		}
		if n > maxCallchain || n > uint64(len(d.b))/24 {
			return nil, fmt.Errorf("branch stack of %d entries in %d bytes", n, len(d.b))
		}
		s.Branches = make([]BranchEntry, n)
		for i := range s.Branches {
			s.Branches[i] = BranchEntry{From: d.u64(), To: d.u64(), Flags: d.u64()}
		}
	}
	if d.err == nil {
		if err := d.decodeUser(t, attr, s, a); err != nil {
			return nil, err
		}
	}
	// Later fields (weight, data source...) are not decoded.
	return s, d.err
}

func (d *dec) read(format uint64) *ReadData {
	r := &ReadData{}
	value := func() ReadValue {
		v := ReadValue{Value: d.u64()}
		if format&FormatID != 0 {
			v.ID = d.u64()
		}
		if format&FormatLost != 0 {
			v.Lost = d.u64()
		}
		return v
	}
	times := func() {
		if format&FormatTotalTimeEnabled != 0 {
			r.TimeEnabled = d.u64()
		}
		if format&FormatTotalTimeRunning != 0 {
			r.TimeRunning = d.u64()
		}
	}
	if format&FormatGroup == 0 {
		v := ReadValue{Value: d.u64()}
		times()
		if format&FormatID != 0 {
			v.ID = d.u64()
		}
		if format&FormatLost != 0 {
			v.Lost = d.u64()
		}
		r.Values = []ReadValue{v}
		return r
	}
	n := d.u64()
	times()
	if n > uint64(len(d.b))/8 {
		d.err = errShort
		return nil
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		r.Values = append(r.Values, value())
	}
	return r
}

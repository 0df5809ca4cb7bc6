package perfdata

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

var le = binary.LittleEndian

// Writer writes a perf.data file: NewWriter writes the header and the attributes at once,
// records follow, and Close writes the features and the final header. Flush makes the
// records written so far part of the file as the header describes it, so a writer that is
// interrupted after a Flush leaves a file perf and this package read.
type Writer struct {
	// Features are written by Close (the zero value writes none). Raw is ignored.
	Features Features

	w        io.WriteSeeker // nil for a pipe (NewPipeWriter)
	bw       *bufio.Writer
	events   []Event
	attrs    Section
	attrSize uint64
	data     Section
	err      error
	closed   bool
	buf      []byte

	// perf record -z (Compress)
	z         Compressor
	zchunk    int
	zbuf      []byte // records not compressed yet
	zout8     []byte
	zin, zout uint64
}

// NewWriter writes the header and events (attributes and ids) to w, positioned at the start
// of the file. Little endian, as on every machine pmc runs on.
func NewWriter(w io.WriteSeeker, events []Event) (*Writer, error) {
	if len(events) == 0 {
		return nil, errors.New("perf.data writer: no events")
	}
	if _, err := layoutOf(events); err != nil {
		return nil, err
	}
	wr := &Writer{w: w, bw: bufio.NewWriterSize(w, 1<<18), events: events}
	size := attrSizeVer7
	for _, ev := range events {
		size = max(size, ev.Attr.encodedSize())
	}
	wr.attrSize = uint64(size + sectionSize)
	// Layout: header, every event's ids, the attribute section, the data.
	off := uint64(headerSize)
	var ids []byte
	idSecs := make([]Section, len(events))
	for i, ev := range events {
		idSecs[i] = Section{off + uint64(len(ids)), 8 * uint64(len(ev.IDs))}
		for _, id := range ev.IDs {
			ids = le.AppendUint64(ids, id)
		}
	}
	wr.attrs = Section{off + uint64(len(ids)), wr.attrSize * uint64(len(events))}
	var attrs []byte
	for i, ev := range events {
		attrs = appendAttr(attrs, ev.Attr, size)
		attrs = le.AppendUint64(attrs, idSecs[i].Offset)
		attrs = le.AppendUint64(attrs, idSecs[i].Size)
	}
	wr.data = Section{Offset: wr.attrs.Offset + wr.attrs.Size}
	wr.bw.Write(wr.header(nil))
	wr.bw.Write(ids)
	if _, err := wr.bw.Write(attrs); err != nil {
		return nil, err
	}
	if err := wr.bw.Flush(); err != nil {
		return nil, err
	}
	return wr, nil
}

// header encodes the file header with the current data section and feature bits.
func (wr *Writer) header(feats *[4]uint64) []byte {
	b := make([]byte, 0, headerSize)
	b = le.AppendUint64(b, magic)
	b = le.AppendUint64(b, headerSize)
	b = le.AppendUint64(b, wr.attrSize)
	for _, s := range []Section{wr.attrs, wr.data, {}} {
		b = le.AppendUint64(b, s.Offset)
		b = le.AppendUint64(b, s.Size)
	}
	for i := 0; i < 4; i++ {
		var v uint64
		if feats != nil {
			v = feats[i]
		}
		b = le.AppendUint64(b, v)
	}
	return b
}

// DataSize is the number of bytes of records written so far.
func (wr *Writer) DataSize() uint64 { return wr.data.Size }

// WriteRaw appends one record already encoded in the kernel's layout (a perf_event_header
// and its payload, as read from a ring buffer).
func (wr *Writer) WriteRaw(rec []byte) error {
	if wr.err != nil {
		return wr.err
	}
	if wr.closed {
		return errors.New("perf.data writer: closed")
	}
	if len(rec) < 8 || int(le.Uint16(rec[6:])) != len(rec) {
		return fmt.Errorf("perf.data writer: a record of %d bytes says it has %d", len(rec), le.Uint16(rec[6:min(8, len(rec))]))
	}
	if wr.z != nil {
		if took, err := wr.deflate(rec); took || err != nil {
			return err
		}
	}
	if _, err := wr.bw.Write(rec); err != nil {
		wr.err = err
		return err
	}
	wr.data.Size += uint64(len(rec))
	return nil
}

// Write encodes and appends r. Samples and trailers follow the layout of the event that
// r's Origin.Event names.
func (wr *Writer) Write(r Record) error {
	b, err := wr.encode(r)
	if err != nil {
		return err
	}
	return wr.WriteRaw(b)
}

// Flush writes the buffered records and updates the header's data size (a pipe's
// records are only written out).
func (wr *Writer) Flush() error {
	if wr.err != nil {
		return wr.err
	}
	if wr.z != nil {
		if err := wr.deflateAll(); err != nil {
			return err
		}
	}
	if err := wr.bw.Flush(); err != nil {
		wr.err = err
		return err
	}
	if wr.w == nil {
		return nil
	}
	var b [8]byte
	le.PutUint64(b[:], wr.data.Size)
	if err := wr.writeAt(b[:], 48); err != nil {
		wr.err = err
	}
	return wr.err
}

// writeAt writes b at off and returns to the end of the file.
func (wr *Writer) writeAt(b []byte, off int64) error {
	if _, err := wr.w.Seek(off, io.SeekStart); err != nil {
		return err
	}
	if _, err := wr.w.Write(b); err != nil {
		return err
	}
	_, err := wr.w.Seek(0, io.SeekEnd)
	return err
}

// Close writes the features after the data and the final header. It does not close the
// underlying writer.
func (wr *Writer) Close() error {
	if wr.closed {
		return wr.err
	}
	if wr.w == nil {
		return wr.closePipe()
	}
	if err := wr.Flush(); err != nil {
		return err
	}
	wr.closed = true
	if c := wr.Features.Compressed; c != nil && wr.zout > 0 {
		c.Ratio = uint32(float64(wr.zin)/float64(wr.zout) + 0.5)
	}
	feats := wr.encodeFeatures()
	var bitmap [4]uint64
	var table, body []byte
	off := wr.data.Offset + wr.data.Size + uint64(len(feats))*sectionSize
	for _, ft := range feats {
		bitmap[ft.bit/64] |= 1 << (ft.bit % 64)
		table = le.AppendUint64(table, off+uint64(len(body)))
		table = le.AppendUint64(table, uint64(len(ft.b)))
		body = append(body, ft.b...)
	}
	if _, err := wr.w.Write(append(table, body...)); err != nil {
		wr.err = err
		return err
	}
	if err := wr.writeAt(wr.header(&bitmap), 0); err != nil {
		wr.err = err
	}
	return wr.err
}

// appendBuildID appends id as a build_id_event (PERF_RECORD_HEADER_BUILD_ID), its file
// name padded to a multiple of align.
func appendBuildID(b []byte, id BuildID, align int) []byte {
	name := (len(id.Filename) + 1 + align - 1) / align * align
	b = le.AppendUint32(b, RecordHeaderBuildID)
	b = le.AppendUint16(b, id.Misc|buildIDMiscSize)
	b = le.AppendUint16(b, uint16(36+name))
	b = le.AppendUint32(b, uint32(id.PID))
	var raw [24]byte
	raw[20] = byte(copy(raw[:20], id.ID))
	b = append(b, raw[:]...)
	b = append(b, id.Filename...)
	return append(b, make([]byte, name-len(id.Filename))...)
}

type feature struct {
	bit int
	b   []byte
}

// appendString appends a perf_header_string: u32 length, NUL-terminated text padded to 64.
func appendString(b []byte, s string) []byte {
	n := (len(s) + 1 + 63) &^ 63
	b = le.AppendUint32(b, uint32(n))
	b = append(b, s...)
	return append(b, make([]byte, n-len(s))...)
}

// encodeFeatures encodes the features in the order of their bits, as the table lists them.
func (wr *Writer) encodeFeatures() []feature {
	fs := &wr.Features
	var out []feature
	add := func(bit int, b []byte) { out = append(out, feature{bit, b}) }
	if len(fs.BuildIDs) > 0 {
		var b []byte
		for _, id := range fs.BuildIDs {
			b = appendBuildID(b, id, 64)
		}
		add(FeatBuildID, b)
	}
	for _, s := range []struct {
		bit int
		v   string
	}{{FeatHostname, fs.Hostname}, {FeatOSRelease, fs.OSRelease}, {FeatVersion, fs.Version}, {FeatArch, fs.Arch}} {
		if s.v != "" {
			add(s.bit, appendString(nil, s.v))
		}
	}
	if fs.NrCPUsOnline > 0 {
		add(FeatNrCPUs, le.AppendUint32(le.AppendUint32(nil, fs.NrCPUsAvailable), fs.NrCPUsOnline))
	}
	if fs.CPUDesc != "" {
		add(FeatCPUDesc, appendString(nil, fs.CPUDesc))
	}
	if fs.CPUID != "" {
		add(FeatCPUID, appendString(nil, fs.CPUID))
	}
	if fs.TotalMemKB > 0 {
		add(FeatTotalMem, le.AppendUint64(nil, fs.TotalMemKB))
	}
	if len(fs.Cmdline) > 0 {
		b := le.AppendUint32(nil, uint32(len(fs.Cmdline)))
		for _, s := range fs.Cmdline {
			b = appendString(b, s)
		}
		add(FeatCmdline, b)
	}
	// EVENT_DESC names the events; perf report shows these names.
	named := false
	for _, ev := range wr.events {
		named = named || ev.Name != ""
	}
	if named {
		size := int(wr.attrSize - sectionSize)
		b := le.AppendUint32(nil, uint32(len(wr.events)))
		b = le.AppendUint32(b, uint32(size))
		for _, ev := range wr.events {
			b = appendAttr(b, ev.Attr, size)
			b = le.AppendUint32(b, uint32(len(ev.IDs)))
			b = appendString(b, ev.Name)
			for _, id := range ev.IDs {
				b = le.AppendUint64(b, id)
			}
		}
		add(FeatEventDesc, b)
	}
	if c := fs.Compressed; c != nil {
		b := le.AppendUint32(le.AppendUint32(nil, c.Version), c.Type)
		b = le.AppendUint32(le.AppendUint32(b, c.Level), c.Ratio)
		add(FeatCompressed, le.AppendUint32(b, c.MmapLen))
	}
	if fs.Stat {
		add(FeatStat, nil)
	}
	return out
}

// encode lays r out as the kernel (or perf, for its own types) would.
func (wr *Writer) encode(r Record) ([]byte, error) {
	h := r.Header()
	b := wr.buf[:0]
	b = append(b, make([]byte, 8)...)
	var o Origin
	trailer := true
	switch r := r.(type) {
	case *Sample:
		if err := wr.checkEvent(r.Event); err != nil {
			return nil, err
		}
		var err error
		if b, err = wr.appendSample(b, r); err != nil {
			return nil, err
		}
		h.Type, trailer = RecordSample, false
	case *Mmap:
		o = r.Origin
		b = le.AppendUint32(le.AppendUint32(b, r.PID), r.TID)
		b = le.AppendUint64(le.AppendUint64(le.AppendUint64(b, r.Addr), r.Len), r.Pgoff)
		if r.Type == RecordMmap2 {
			if h.Misc&MiscMmapBuildID != 0 {
				var raw [24]byte
				raw[0] = byte(copy(raw[4:], r.BuildID))
				b = append(b, raw[:]...)
			} else {
				b = le.AppendUint32(le.AppendUint32(b, r.Maj), r.Min)
				b = le.AppendUint64(le.AppendUint64(b, r.Ino), r.InoGen)
			}
			b = le.AppendUint32(le.AppendUint32(b, r.Prot), r.Flags)
		} else {
			h.Type = RecordMmap
		}
		b = appendPadded(b, r.Filename)
	case *Comm:
		o, h.Type = r.Origin, RecordComm
		b = le.AppendUint32(le.AppendUint32(b, r.PID), r.TID)
		b = appendPadded(b, r.Comm)
	case *Task:
		o = r.Origin
		if h.Type != RecordExit {
			h.Type = RecordFork
		}
		b = le.AppendUint32(le.AppendUint32(b, r.PID), r.PPID)
		b = le.AppendUint32(le.AppendUint32(b, r.TID), r.PTID)
		b = le.AppendUint64(b, r.Time)
	case *Lost:
		o, h.Type = r.Origin, RecordLost
		b = le.AppendUint64(le.AppendUint64(b, r.LostID), r.Lost)
	case *LostSamples:
		o, h.Type = r.Origin, RecordLostSamples
		b = le.AppendUint64(b, r.Lost)
	case *FinishedRound:
		h.Type, trailer = RecordFinishedRound, false
	case *Unknown:
		b, trailer = append(b, r.Data...), false
	default:
		var err error
		if b, h.Type, err = encodeStat(b, r); err != nil {
			return nil, err
		}
		if h.Type == 0 {
			return nil, fmt.Errorf("perf.data writer: cannot encode %T", r)
		}
		trailer = false
	}
	if trailer {
		if err := wr.checkEvent(o.Event); err != nil {
			return nil, err
		}
		b = wr.appendTrailer(b, o)
	}
	if len(b) > 0xffff {
		return nil, fmt.Errorf("perf.data writer: a record of %d bytes (at most 65535)", len(b))
	}
	le.PutUint32(b, h.Type)
	le.PutUint16(b[4:], h.Misc)
	le.PutUint16(b[6:], uint16(len(b)))
	wr.buf = b[:0]
	return b, nil
}

func (wr *Writer) checkEvent(i int) error {
	if i < 0 || i >= len(wr.events) {
		return fmt.Errorf("perf.data writer: event %d of %d", i, len(wr.events))
	}
	return nil
}

// appendPadded appends s NUL-terminated and padded to 8 bytes.
func appendPadded(b []byte, s string) []byte {
	n := (len(s) + 1 + 7) &^ 7
	b = append(b, s...)
	return append(b, make([]byte, n-len(s))...)
}

func (wr *Writer) appendTrailer(b []byte, o Origin) []byte {
	a := wr.events[o.Event].Attr
	if !a.SampleIDAll() {
		return b
	}
	t := a.SampleType
	if t&SampleTID != 0 {
		b = le.AppendUint32(le.AppendUint32(b, o.PID), o.TID)
	}
	if t&SampleTime != 0 {
		b = le.AppendUint64(b, o.Time)
	}
	if t&SampleID != 0 {
		b = le.AppendUint64(b, o.ID)
	}
	if t&SampleStreamID != 0 {
		b = le.AppendUint64(b, o.StreamID)
	}
	if t&SampleCPU != 0 {
		b = le.AppendUint32(le.AppendUint32(b, o.CPU), 0)
	}
	if t&SampleIdentifier != 0 {
		b = le.AppendUint64(b, o.ID)
	}
	return b
}

func (wr *Writer) appendSample(b []byte, s *Sample) ([]byte, error) {
	a := wr.events[s.Event].Attr
	t := a.SampleType
	if extra := t &^ sampleTypeDecoded; extra != 0 {
		return nil, fmt.Errorf("perf.data writer: sample_type bits %#x are not supported", extra)
	}
	if t&SampleIdentifier != 0 {
		b = le.AppendUint64(b, s.ID)
	}
	if t&SampleIP != 0 {
		b = le.AppendUint64(b, s.IP)
	}
	if t&SampleTID != 0 {
		b = le.AppendUint32(le.AppendUint32(b, s.PID), s.TID)
	}
	if t&SampleTime != 0 {
		b = le.AppendUint64(b, s.Time)
	}
	if t&SampleAddr != 0 {
		b = le.AppendUint64(b, s.Addr)
	}
	if t&SampleID != 0 {
		b = le.AppendUint64(b, s.ID)
	}
	if t&SampleStreamID != 0 {
		b = le.AppendUint64(b, s.StreamID)
	}
	if t&SampleCPU != 0 {
		b = le.AppendUint32(le.AppendUint32(b, s.CPU), 0)
	}
	if t&SamplePeriod != 0 {
		b = le.AppendUint64(b, s.Period)
	}
	if t&SampleRead != 0 {
		if s.Read == nil || len(s.Read.Values) == 0 || a.ReadFormat&FormatGroup == 0 && len(s.Read.Values) != 1 {
			return nil, errors.New("perf.data writer: a sample without the read values its event's sample_type has")
		}
		b = appendRead(b, s.Read, a.ReadFormat)
	}
	if t&SampleCallchain != 0 {
		b = le.AppendUint64(b, uint64(len(s.Callchain)))
		for _, ip := range s.Callchain {
			b = le.AppendUint64(b, ip)
		}
	}
	if t&SampleRaw != 0 {
		b = le.AppendUint32(b, uint32(len(s.Raw)))
		b = append(b, s.Raw...)
		if pad := (8 - (len(s.Raw)+4)%8) % 8; pad > 0 {
			b = append(b, make([]byte, pad)...)
		}
	}
	if t&SampleBranchStack != 0 {
		b = le.AppendUint64(b, uint64(len(s.Branches)))
		if a.BranchSampleType&BranchHWIndex != 0 {
			b = le.AppendUint64(b, ^uint64(0)) // the kernel's "index not known"
		}
		for _, e := range s.Branches {
			b = le.AppendUint64(le.AppendUint64(le.AppendUint64(b, e.From), e.To), e.Flags)
		}
	}
	return appendUser(b, t, a, s)
}

func appendRead(b []byte, r *ReadData, format uint64) []byte {
	value := func(v ReadValue) {
		if format&FormatID != 0 {
			b = le.AppendUint64(b, v.ID)
		}
		if format&FormatLost != 0 {
			b = le.AppendUint64(b, v.Lost)
		}
	}
	times := func() {
		if format&FormatTotalTimeEnabled != 0 {
			b = le.AppendUint64(b, r.TimeEnabled)
		}
		if format&FormatTotalTimeRunning != 0 {
			b = le.AppendUint64(b, r.TimeRunning)
		}
	}
	if format&FormatGroup == 0 {
		b = le.AppendUint64(b, r.Values[0].Value)
		times()
		value(r.Values[0])
		return b
	}
	b = le.AppendUint64(b, uint64(len(r.Values)))
	times()
	for _, v := range r.Values {
		b = le.AppendUint64(b, v.Value)
		value(v)
	}
	return b
}

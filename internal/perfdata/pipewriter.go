package perfdata

import (
	"bufio"
	"errors"
	"io"
)

// NewPipeWriter writes perf's pipe format (what perf record -o - writes) to w, which need
// not seek: the pipe header, a HEADER_ATTR record per event (its attribute and ids) and a
// HEADER_FEATURE record per feature of fs (EVENT_DESC names the events) at once; the
// records follow as they are written; Close adds the build ids (HEADER_BUILD_ID records)
// of Writer.Features. perf report -i - and NewPipe read it.
func NewPipeWriter(w io.Writer, events []Event, fs Features) (*Writer, error) {
	if len(events) == 0 {
		return nil, errors.New("perf.data writer: no events")
	}
	if _, err := layoutOf(events); err != nil {
		return nil, err
	}
	wr := &Writer{bw: bufio.NewWriterSize(w, 1<<18), events: events}
	size := attrSizeVer7
	for _, ev := range events {
		size = max(size, ev.Attr.encodedSize())
	}
	wr.attrSize = uint64(size + sectionSize) // the EVENT_DESC feature's attribute size
	b := le.AppendUint64(nil, magic)
	b = le.AppendUint64(b, pipeHeaderSize)
	for _, ev := range events {
		b = appendRecordHeader(b, RecordHeaderAttr, 8+size+8*len(ev.IDs))
		b = appendAttr(b, ev.Attr, size)
		for _, id := range ev.IDs {
			b = le.AppendUint64(b, id)
		}
	}
	// The features but the build ids, which Close writes once they are known.
	wr.Features = fs
	ids := wr.Features.BuildIDs
	wr.Features.BuildIDs = nil
	for _, ft := range wr.encodeFeatures() {
		pad := (8 - len(ft.b)%8) % 8
		b = appendRecordHeader(b, RecordHeaderFeature, 16+len(ft.b)+pad)
		b = le.AppendUint64(b, uint64(ft.bit))
		b = append(append(b, ft.b...), make([]byte, pad)...)
	}
	wr.Features.BuildIDs = ids
	if _, err := wr.bw.Write(b); err != nil {
		return nil, err
	}
	return wr, nil
}

func appendRecordHeader(b []byte, typ uint32, size int) []byte {
	b = le.AppendUint32(b, typ)
	b = le.AppendUint16(b, 0)
	return le.AppendUint16(b, uint16(size))
}

// closePipe ends a pipe: the build ids of Features, one HEADER_BUILD_ID record each.
func (wr *Writer) closePipe() error {
	if wr.err != nil {
		return wr.err
	}
	if wr.z != nil {
		if err := wr.deflateAll(); err != nil {
			return err
		}
	}
	wr.closed = true
	var b []byte
	for _, id := range wr.Features.BuildIDs {
		b = appendBuildID(b, id, 8)
	}
	if _, err := wr.bw.Write(b); err != nil {
		wr.err = err
		return err
	}
	if err := wr.bw.Flush(); err != nil {
		wr.err = err
	}
	return wr.err
}

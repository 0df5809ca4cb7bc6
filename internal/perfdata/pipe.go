package perfdata

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// perf's own record types (PERF_RECORD_HEADER_* and the rest >= 64) that pipe mode uses
// in place of the file header's sections, and those followed by a payload outside the
// record.
const (
	RecordHeaderAttr        uint32 = 64
	RecordHeaderEventType   uint32 = 65
	RecordHeaderTracingData uint32 = 66 // followed by the tracing data (8-byte aligned)
	RecordHeaderBuildID     uint32 = 67
	RecordIDIndex           uint32 = 69
	RecordAuxtraceInfo      uint32 = 70
	RecordAuxtrace          uint32 = 71 // followed by Size bytes of trace
	RecordEventUpdate       uint32 = 78
	RecordHeaderFeature     uint32 = 80
)

// pipeHeaderSize is the header of perf's pipe format: the magic and the header's size (16).
const pipeHeaderSize = 16

// NewPipe reads perf's pipe format (perf record -o -) from a stream: the header records
// (attributes, features, event names) up to the first record of the data. The data is
// then read once, from r, by Records.
func NewPipe(r io.Reader) (*File, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	f := &File{Pipe: true, byID: map[uint64]int{}, stream: br, order: binary.LittleEndian}
	hdr := make([]byte, pipeHeaderSize)
	if n, err := io.ReadFull(br, hdr); n == 0 {
		return nil, formatErr("empty input: nothing was piped (perf record -o - | pmc report -i -)")
	} else if err != nil {
		return nil, formatErr("pipe header: %v", err)
	}
	if err := f.pipeMagic(hdr); err != nil {
		return nil, err
	}
	n, err := f.readPipeHeader(br, pipeHeaderSize)
	if err != nil {
		return nil, err
	}
	f.Data = Section{Offset: uint64(n)}
	return f, f.setup()
}

// newPipeFile reads a pipe-format file stored on disk: its data may be read many times.
func (f *File) newPipeFile() error {
	f.Pipe = true
	sr := io.NewSectionReader(f.r, pipeHeaderSize, f.size-pipeHeaderSize)
	n, err := f.readPipeHeader(bufio.NewReaderSize(sr, 1<<16), pipeHeaderSize)
	if err != nil {
		return err
	}
	f.Data = Section{Offset: uint64(n), Size: uint64(f.size - n)}
	return f.setup()
}

func (f *File) pipeMagic(hdr []byte) error {
	switch m := binary.LittleEndian.Uint64(hdr); {
	case m == swap64(magic):
		return fmt.Errorf("%w: a big-endian perf.data file; convert it on its own machine (perf script)", ErrUnsupported)
	case m != magic:
		return formatErr("not a perf.data file (no PERFILE2 magic)")
	}
	if n := binary.LittleEndian.Uint64(hdr[8:]); n != pipeHeaderSize {
		return formatErr("pipe header size %d, not %d", n, pipeHeaderSize)
	}
	return nil
}

// readPipeHeader consumes the header records at the start of a pipe's data (the stream br
// starts at file offset off) and returns the offset of the first data record.
func (f *File) readPipeHeader(br *bufio.Reader, off int64) (int64, error) {
	f.Features.Raw = map[int][]byte{}
	for {
		h, err := br.Peek(8)
		if len(h) < 8 {
			if errors.Is(err, io.EOF) && len(h) == 0 {
				break // header records only: a pipe with no data
			}
			return 0, formatErr("record header at %d: %v", off, err)
		}
		typ, size := f.order.Uint32(h), int(f.order.Uint16(h[6:]))
		if !pipeHeaderRecord(typ) {
			break
		}
		if size < 8 {
			return 0, formatErr("record type %d size %d at %d: impossible size", typ, size, off)
		}
		rec, err := br.Peek(size)
		if len(rec) < size {
			return 0, formatErr("record type %d at %d: the pipe ends inside it (%v)", typ, off, err)
		}
		skip, err := f.pipeRecord(typ, rec)
		if err != nil {
			return 0, formatErr("record type %d at %d: %v", typ, off, err)
		}
		if f.pipeHeaders == nil {
			f.pipeHeaders = map[uint32]int{}
		}
		f.pipeHeaders[typ]++
		br.Discard(size)
		if n, err := br.Discard(int(skip)); uint64(n) != skip {
			return 0, formatErr("record type %d at %d: its %d bytes of payload are cut short (%v)", typ, off, skip, err)
		}
		off += int64(size) + int64(skip)
	}
	if len(f.Events) == 0 {
		return 0, formatErr("a pipe-mode perf.data with no event attributes (no HEADER_ATTR record)")
	}
	return off, nil
}

// pipeHeaderRecord says whether records of type typ belong to the header of a pipe (perf
// writes them before the first record of the data).
func pipeHeaderRecord(typ uint32) bool {
	switch typ {
	case RecordHeaderAttr, RecordHeaderEventType, RecordHeaderTracingData, RecordHeaderBuildID,
		RecordEventUpdate, RecordHeaderFeature:
		return true
	}
	return false
}

// pipeRecord applies one header record of a pipe (rec, its header included) and returns
// the size of the payload that follows it outside the record.
func (f *File) pipeRecord(typ uint32, rec []byte) (uint64, error) {
	o := f.order
	body := rec[8:]
	switch typ {
	case RecordHeaderAttr:
		if len(f.Events) >= maxAttrs {
			return 0, fmt.Errorf("more than %d event attributes", maxAttrs)
		}
		if len(body) < attrSizeVer0 {
			return 0, fmt.Errorf("attribute of %d bytes", len(body))
		}
		asz := int(o.Uint32(body[4:]))
		if asz == 0 {
			asz = attrSizeVer0
		}
		if asz < attrSizeVer0 || asz > len(body) || (len(body)-asz)%8 != 0 {
			return 0, fmt.Errorf("attribute size %d in a record of %d bytes", asz, len(body))
		}
		ev := Event{Attr: decodeAttr(body[:asz], o)}
		for b := body[asz:]; len(b) >= 8; b = b[8:] {
			ev.IDs = append(ev.IDs, o.Uint64(b))
		}
		f.Events = append(f.Events, ev)
	case RecordHeaderTracingData:
		if len(body) < 4 {
			return 0, errShort
		}
		return (uint64(o.Uint32(body)) + 7) &^ 7, nil
	case RecordHeaderBuildID:
		// One build_id_event, as in the BUILD_ID feature (its misc the cpumode).
		if ids, err := decodeBuildIDs(rec, o); err == nil {
			f.Features.BuildIDs = append(f.Features.BuildIDs, ids...)
		}
	case RecordEventUpdate:
		hdr := RecordHeader{Type: typ, Size: uint16(len(rec))}
		if r, _, err := f.decodeStatRecord(hdr, body); err == nil {
			f.pipeUpdates = append(f.pipeUpdates, r.(*EventUpdate))
		}
	case RecordHeaderFeature:
		if len(body) < 8 {
			return 0, errShort
		}
		bit := o.Uint64(body)
		if bit < featMax {
			f.feature(int(bit), body[8:])
		}
	}
	return 0, nil
}

package perfdata

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// magic is "PERFILE2" read as a little-endian u64.
const magic uint64 = 0x32454c4946524550

const (
	headerSize  = 104 // struct perf_file_header
	sectionSize = 16  // struct perf_file_section
	maxAttrs    = 1 << 12
	maxIDs      = 1 << 22
)

// Section is a perf_file_section: where something lies in the file.
type Section struct{ Offset, Size uint64 }

// Event is one attribute of the file with the kernel ids its samples carry and, when the
// file describes it (EVENT_DESC), the event's name.
type Event struct {
	Attr Attr
	IDs  []uint64
	Name string
	// Unit and Scale are what perf stat prints its counts in ("msec" and 1e-6 for a
	// clock's ns), from a pipe's EVENT_UPDATE records; a file's come as records.
	Unit  string
	Scale float64
}

// update applies an EVENT_UPDATE record: a name the event does not have yet, its unit or
// its scale.
func (ev *Event) update(u *EventUpdate) {
	switch u.Kind {
	case EventUpdateName:
		if ev.Name == "" {
			ev.Name = u.Name
		}
	case EventUpdateUnit:
		ev.Unit = u.Unit
	case EventUpdateScale:
		ev.Scale = u.Scale
	}
}

// File is an opened perf.data file. Its records are read with Records.
type File struct {
	Events   []Event
	Data     Section // the data section (Size covers whole records only when the writer finished)
	Features Features
	// Unfinished: the data size in the header was 0 (a writer that did not finish); the
	// records run to the end of the file and the features are absent.
	Unfinished bool
	// Pipe: the file is in perf's pipe format (perf record -o -): header records instead
	// of a header, the data to the end of the file or stream.
	Pipe bool

	r      io.ReaderAt
	stream *bufio.Reader // NewPipe's: the data, read once
	// pipeHeaders counts the header records of a pipe by type (perf report --stats counts
	// them with the rest).
	pipeHeaders map[uint32]int
	pipeUpdates []*EventUpdate // a pipe's, applied to Events
	size        int64
	order       binary.ByteOrder
	byID        map[uint64]int
	layout      idLayout
	sampleErr   error // why samples cannot be decoded (the file opens all the same)
	closer      io.Closer
}

// FormatError is a file that is not perf.data or is damaged; Unsupported is a valid file
// this reader cannot decode.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "perf.data: " + e.Msg }

// ErrUnsupported marks perf.data features this package does not decode (errors.Is).
var ErrUnsupported = errors.New("unsupported")

func formatErr(f string, args ...any) error { return &FormatError{Msg: fmt.Sprintf(f, args...)} }

// Open opens a perf.data file by name (a FIFO or device is read as a stream: NewPipe).
// Close releases it.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	var f *File
	if fi.Mode().IsRegular() {
		f, err = NewFile(fh, fi.Size())
	} else {
		// A FIFO or a device: perf's pipe format, read as it comes.
		f, err = NewPipe(fh)
	}
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.closer = fh
	return f, nil
}

// Close closes the file Open opened (nothing for NewFile).
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	err := f.closer.Close()
	f.closer = nil
	return err
}

// NewFile reads the header, attributes and features of the perf.data file in r (size bytes).
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	f := &File{r: r, size: size, byID: map[uint64]int{}}
	if size >= pipeHeaderSize && f.isPipe() {
		f.order = binary.LittleEndian
		if err := f.newPipeFile(); err != nil {
			return nil, err
		}
		return f, nil
	}
	hdr, err := f.read(0, headerSize, "file header")
	if err != nil {
		return nil, err
	}
	switch m := binary.LittleEndian.Uint64(hdr); {
	case m == magic:
		f.order = binary.LittleEndian
	case m == swap64(magic):
		return nil, fmt.Errorf("%w: a big-endian perf.data file; convert it on its own machine (perf script)", ErrUnsupported)
	case string(hdr[:8]) == "PERFFILE":
		return nil, fmt.Errorf("%w: perf.data version 1; rerecord with a perf newer than 2010", ErrUnsupported)
	default:
		return nil, formatErr("not a perf.data file (no PERFILE2 magic)")
	}
	o := f.order
	hsize := o.Uint64(hdr[8:])
	if hsize < headerSize {
		return nil, formatErr("header size %d is smaller than %d", hsize, headerSize)
	}
	attrSize := o.Uint64(hdr[16:])
	attrs := Section{o.Uint64(hdr[24:]), o.Uint64(hdr[32:])}
	f.Data = Section{o.Uint64(hdr[40:]), o.Uint64(hdr[48:])}
	var feats [4]uint64
	for i := range feats {
		feats[i] = o.Uint64(hdr[72+8*i:])
	}
	if err := f.readAttrs(attrSize, attrs); err != nil {
		return nil, err
	}
	if f.Data.Offset > uint64(size) {
		return nil, formatErr("data section at %d is past the end of the file (%d bytes): the file is truncated", f.Data.Offset, size)
	}
	if f.Data.Size == 0 {
		f.Unfinished = true
		f.Data.Size = uint64(size) - f.Data.Offset
		return f, f.setup()
	}
	if f.Data.Size > uint64(size)-f.Data.Offset {
		return nil, formatErr("data section (%d bytes at %d) runs past the end of the file (%d bytes): the file is truncated", f.Data.Size, f.Data.Offset, size)
	}
	if err := f.readFeatures(feats); err != nil {
		return nil, err
	}
	return f, f.setup()
}

func (f *File) isPipe() bool {
	var b [16]byte
	if _, err := f.r.ReadAt(b[:], 0); err != nil {
		return false
	}
	return binary.LittleEndian.Uint64(b[:]) == magic && binary.LittleEndian.Uint64(b[8:]) == 16
}

// read returns n bytes at off, or an error naming what was being read.
func (f *File) read(off, n uint64, what string) ([]byte, error) {
	if off > uint64(f.size) || n > uint64(f.size)-off {
		return nil, formatErr("%s (%d bytes at %d) runs past the end of the file (%d bytes): the file is truncated", what, n, off, f.size)
	}
	b := make([]byte, n)
	if _, err := f.r.ReadAt(b, int64(off)); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return b, nil
}

func (f *File) readAttrs(attrSize uint64, s Section) error {
	if attrSize < attrSizeVer0+sectionSize || attrSize > 4096 {
		return formatErr("attribute size %d is not plausible", attrSize)
	}
	if s.Size%attrSize != 0 {
		return formatErr("attribute section of %d bytes is not a multiple of %d", s.Size, attrSize)
	}
	n := s.Size / attrSize
	if n == 0 {
		return formatErr("no event attributes")
	}
	if n > maxAttrs {
		return formatErr("%d event attributes is not plausible", n)
	}
	b, err := f.read(s.Offset, s.Size, "attribute section")
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		rec := b[i*attrSize : (i+1)*attrSize]
		a := decodeAttr(rec[:attrSize-sectionSize], f.order)
		ids := Section{f.order.Uint64(rec[attrSize-16:]), f.order.Uint64(rec[attrSize-8:])}
		if ids.Size%8 != 0 || ids.Size/8 > maxIDs {
			return formatErr("event %d: id section of %d bytes", i, ids.Size)
		}
		raw, err := f.read(ids.Offset, ids.Size, fmt.Sprintf("event %d's ids", i))
		if err != nil {
			return err
		}
		ev := Event{Attr: a, IDs: make([]uint64, ids.Size/8)}
		for j := range ev.IDs {
			ev.IDs[j] = f.order.Uint64(raw[8*j:])
		}
		f.Events = append(f.Events, ev)
	}
	return nil
}

// setup indexes the ids and checks that every record can be attributed to its event.
func (f *File) setup() error {
	for i, ev := range f.Events {
		for _, id := range ev.IDs {
			f.byID[id] = i
		}
		if f.Features.EventNames != nil && i < len(f.Features.EventNames) && f.Events[i].Name == "" {
			f.Events[i].Name = f.Features.EventNames[i]
		}
	}
	for _, u := range f.pipeUpdates {
		if i, ok := f.byID[u.ID]; ok {
			f.Events[i].update(u)
		}
	}
	l, err := layoutOf(f.Events)
	switch {
	case errors.Is(err, errNoSampleID):
		f.sampleErr = err // only a sample is an error
	case err != nil:
		return err
	}
	f.layout = l
	return nil
}

func swap64(v uint64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return binary.BigEndian.Uint64(b[:])
}

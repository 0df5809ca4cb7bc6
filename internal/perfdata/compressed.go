package perfdata

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pmc-tools/pmc/internal/zstd"
)

// perf record -z: PERF_RECORD_COMPRESSED records hold one zstd stream of ordinary records,
// each record's data flushed so that it decodes to whole records (perf's ZSTD_e_flush):
// the records come out where the compressed ones stood. The stream's history spans the
// records, so one decoder reads all of them: it runs beside the reader (a goroutine that
// ends with the records) and is handed each record's data in turn.
//
// The decoder is the standard library's, which is reachable only as debug/elf's reader of
// zstd-compressed sections: the stream follows zstd.ELFPrefix, the header of a minimal ELF
// file whose one section it is. It costs nothing at start-up (debug/elf is linked in
// anyway); a zstd decoder package would (tables built at every launch).

// inflater holds the records decompressed and not read yet.
type inflater struct {
	in      chan []byte   // each COMPRESSED record's data, to the decoder
	out     chan inflated // what the decoder made of it, then done
	buf     []byte        // decompressed records
	pos     int           // buf[pos:] is unread
	at      int64         // the file offset of the COMPRESSED record they came from
	err     error         // the decoder's, once it failed
	started bool
}

type inflated struct {
	b    []byte
	done bool // the decoder wants more: everything fed is out
	err  error
}

// feed decompresses a COMPRESSED record's data.
func (z *inflater) feed(data []byte, at int64) error {
	if z.err != nil {
		return z.err
	}
	if !z.started {
		z.start()
	}
	if z.pos == len(z.buf) {
		z.buf, z.pos = z.buf[:0], 0
	}
	z.at = at
	z.in <- append([]byte(nil), data...)
	for x := range z.out {
		switch {
		case x.err != nil:
			z.err = fmt.Errorf("decompressing: %v", x.err)
			return z.err
		case x.done:
			return nil
		}
		z.buf = append(z.buf, x.b...)
	}
	z.err = errors.New("decompressing: the decoder stopped")
	return z.err
}

func (z *inflater) start() {
	z.started = true
	z.in, z.out = make(chan []byte), make(chan inflated)
	src := &feedReader{in: z.in, out: z.out, said: true} // nothing fed yet: nothing to say
	go func() {
		defer close(z.out)
		f, err := elf.NewFile(src)
		if err != nil || len(f.Sections) != 2 {
			z.out <- inflated{err: fmt.Errorf("the zstd section: %v", err)}
			return
		}
		r := f.Sections[1].Open()
		buf := make([]byte, 1<<16)
		for {
			// The decoder reads the stream as it needs it and returns each block's
			// output before it asks for the next block.
			n, err := r.Read(buf)
			if n > 0 {
				z.out <- inflated{b: append([]byte(nil), buf[:n]...)}
			}
			if err == io.EOF || errors.Is(err, errStopped) {
				return // the records ended (stop)
			}
			if err != nil {
				z.out <- inflated{err: err}
				return
			}
		}
	}()
}

// stop ends the decoder once the records are read (or failed).
func (z *inflater) stop() {
	if z.in != nil {
		close(z.in)
		for range z.out {
		}
		z.in = nil
	}
}

var errStopped = errors.New("the compressed records ended")

// feedReader is the decoder's input: the ELF header, then the records' data as feed hands
// it over; before it waits for more, it says so. Reads come in order.
type feedReader struct {
	in   chan []byte
	out  chan inflated
	data []byte // the stream from offset base on
	base int64
	said bool
	hdr  []byte
}

func (r *feedReader) ReadAt(p []byte, off int64) (int, error) {
	if r.hdr == nil {
		r.hdr = zstd.ELFPrefix()
	}
	n := 0
	if off < zstd.ELFPrefixSize {
		n = copy(p, r.hdr[off:])
		off += int64(n)
	}
	for n < len(p) {
		s := off - zstd.ELFPrefixSize - r.base
		if s < 0 {
			return n, errors.New("the zstd stream was read out of order")
		}
		if s < int64(len(r.data)) {
			k := copy(p[n:], r.data[s:])
			n += k
			off += int64(k)
			continue
		}
		// Everything fed is read: drop it, say so and wait for more.
		r.base += int64(len(r.data))
		r.data = r.data[:0]
		if !r.said {
			r.out <- inflated{done: true}
			r.said = true
		}
		b, ok := <-r.in
		if !ok {
			return n, errStopped
		}
		r.data, r.said = append(r.data, b...), false
	}
	return n, nil
}

// next returns the next decompressed record's bytes, nil when there is no whole one.
func (z *inflater) next(o binary.ByteOrder) ([]byte, error) {
	rest := z.buf[z.pos:]
	if len(rest) < 8 {
		return nil, nil
	}
	size := int(o.Uint16(rest[6:]))
	if size < 8 {
		return nil, errors.New("a compressed record holds a record of impossible size")
	}
	if len(rest) < size {
		return nil, nil
	}
	z.pos += size
	return rest[:size], nil
}

// leftover says whether decompressed bytes wait for the rest of their record.
func (z *inflater) leftover() bool { return z.pos < len(z.buf) }

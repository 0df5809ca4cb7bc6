package perfdata

import "fmt"

// perf record -z: the records are the contents of PERF_RECORD_COMPRESSED records (a
// perf_event_header, then compressed bytes, no padding), one zstd stream across the file,
// flushed at the end of each so that it decodes to whole records; FINISHED_ROUND stays
// outside them, as perf writes it. The HEADER_COMPRESSED feature says how (Compressed).

// Compressor is the stream: Append compresses src as its continuation and appends it to
// dst, flushed, so that what it appends decodes to all of src (zstd.Encoder).
type Compressor interface {
	Append(dst, src []byte) []byte
}

// Compressed is the HEADER_COMPRESSED feature.
type Compressed struct {
	Version, Type, Level uint32
	// Ratio is the records' size over the COMPRESSED records', rounded (0 in a pipe,
	// whose features come first).
	Ratio uint32
	// MmapLen is what perf's reader decompresses each COMPRESSED record into: the length
	// of the recording's ring mapping. No record's contents exceed it.
	MmapLen uint32
}

// CompressZstd is HEADER_COMPRESSED's type for zstd, the only one perf writes.
const CompressZstd = 1

// maxChunk is the most a COMPRESSED record holds: its size is a u16, and the compressor
// adds its framing (a frame header once, a block header per block) to what it cannot
// compress.
const maxChunk = 0xffff - 8 - 64

// Compress makes the records written from now on the contents of COMPRESSED records made
// by z, each holding at most chunk bytes of records (those of MmapLen, and never more
// than fits a record). Records are kept whole where they fit. Close sets the ratio of
// Features.Compressed, which the caller fills in.
func (wr *Writer) Compress(z Compressor, chunk int) {
	wr.z, wr.zchunk = z, max(min(chunk, maxChunk), 8)
}

// CompressedSizes are the bytes of records compressed and of the COMPRESSED records
// written for them.
func (wr *Writer) CompressedSizes() (records, compressed uint64) { return wr.zin, wr.zout }

// deflate takes rec into the pending records, compressing them first when it would not
// fit; it says false for a record that is not compressed (FINISHED_ROUND), before which
// the pending records are written.
func (wr *Writer) deflate(rec []byte) (bool, error) {
	if le.Uint32(rec) == RecordFinishedRound {
		return false, wr.deflateAll()
	}
	if len(wr.zbuf)+len(rec) > wr.zchunk {
		if err := wr.deflateAll(); err != nil {
			return true, err
		}
	}
	wr.zbuf = append(wr.zbuf, rec...)
	return true, nil
}

// deflateAll writes the pending records as COMPRESSED records (a record longer than a
// chunk is split across two; perf's reader and this package's join it).
func (wr *Writer) deflateAll() error {
	for p := 0; p < len(wr.zbuf); {
		n := min(len(wr.zbuf)-p, wr.zchunk)
		out := wr.zout8[:0]
		out = append(out, make([]byte, 8)...)
		out = wr.z.Append(out, wr.zbuf[p:p+n])
		if len(out) > 0xffff {
			wr.err = fmt.Errorf("perf.data writer: %d bytes compressed to a record of %d", n, len(out))
			return wr.err
		}
		le.PutUint32(out, RecordCompressed)
		le.PutUint16(out[6:], uint16(len(out)))
		if _, err := wr.bw.Write(out); err != nil {
			wr.err = err
			return err
		}
		wr.zout8 = out
		wr.data.Size += uint64(len(out))
		wr.zin += uint64(n)
		wr.zout += uint64(len(out))
		p += n
	}
	wr.zbuf = wr.zbuf[:0]
	return nil
}

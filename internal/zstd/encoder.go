package zstd

import "encoding/binary"

const (
	windowLog = 19
	// WindowSize is the frame's window: no match reaches further back (libzstd's for its
	// fast levels on a stream of unknown size, and what perf record -z writes).
	WindowSize = 1 << windowLog
	// MaxBlockSize is the largest block (RFC 8878 3.1.1.2.4).
	MaxBlockSize = 128 << 10
	// histCap: the history slides (keeping the window) when it would grow past this.
	histCap = WindowSize + 4*MaxBlockSize

	frameMagic = 0xFD2FB528
)

// Block_Type (RFC 3.1.1.2.2).
const (
	blockRaw        = 0
	blockRLE        = 1
	blockCompressed = 2
)

// Options say how an Encoder compresses.
type Options struct {
	// Level is zstd's compression level (perf's -z N): 1 and 2 match greedily with a small
	// hash table (libzstd's level 1 is the benchmark); 3 and above look one byte further
	// for a longer match in a larger table. 0 is 1; above 3 is 3.
	Level int
	// Checksum ends the frame (Close, Compress) with the content checksum.
	Checksum bool
}

// An Encoder writes one frame. Its state (the window, the hash table, the repeat offsets)
// spans the frame: what Append writes refers back to what it wrote before.
type Encoder struct {
	opt     Options
	hashLog uint8
	lazy    bool

	started, ended bool
	contentSize    int64 // Compress: the frame header says it; -1: unknown

	hist   []byte  // the latest input: hist[i] is at table position origin+i
	origin int32   // > 0: 0 in table means empty
	table  []int32 // hash of 6 bytes -> table position of their latest occurrence
	rep    [3]uint32
	xx     xxh64

	coder *seqCoder
	huff  *huffEncoder
	seqs  []seq
	lits  []byte
	body  []byte
}

// NewEncoder returns an encoder of one frame whose size is not known in advance (the
// frame header carries the window size, not the content size).
func NewEncoder(o Options) *Encoder {
	if o.Level <= 0 {
		o.Level = 1
	}
	e := &Encoder{opt: o, hashLog: 14, contentSize: -1, origin: 1, rep: [3]uint32{1, 4, 8}}
	if o.Level >= 3 {
		e.hashLog, e.lazy = 16, true
	}
	e.coder = newSeqCoder()
	e.huff = newHuffEncoder()
	if o.Checksum {
		e.xx.reset()
	}
	return e
}

// Append compresses src as the next bytes of the frame and appends it to dst, flushed:
// what it appends (the frame header first) decodes to all of src. Each block holds at most
// MaxBlockSize bytes of src: a caller that needs output of bounded size hands over less.
func (e *Encoder) Append(dst, src []byte) []byte {
	if len(src) == 0 || e.ended {
		return dst
	}
	return e.write(dst, src, false)
}

// Close ends the frame: its last block, then the checksum if the Options ask for it.
func (e *Encoder) Close(dst []byte) []byte {
	if e.ended {
		return dst
	}
	return e.write(dst, nil, true)
}

// Compress appends one frame holding src, with its size in the frame header.
func Compress(dst, src []byte, o Options) []byte {
	e := NewEncoder(o)
	e.contentSize = int64(len(src))
	return e.write(dst, src, true)
}

func (e *Encoder) write(dst, src []byte, last bool) []byte {
	if !e.started {
		dst = e.appendFrameHeader(dst)
		e.started = true
	}
	for len(src) > 0 || last {
		n := min(len(src), MaxBlockSize)
		end := last && n == len(src)
		dst = e.appendBlock(dst, src[:n], end)
		src = src[n:]
		if end {
			break
		}
	}
	if last {
		e.ended = true
		if e.opt.Checksum {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(e.xx.sum()))
		}
	}
	return dst
}

// appendFrameHeader appends the magic number and the Frame_Header (RFC 3.1.1.1): the
// content size when known (then a single segment when it fits the window), else the
// window size.
func (e *Encoder) appendFrameHeader(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, frameMagic)
	var desc byte
	if e.opt.Checksum {
		desc |= 1 << 2
	}
	size := e.contentSize
	single := size >= 0 && size <= WindowSize
	var fcs []byte
	switch {
	case size < 0:
	case single && size < 256:
		fcs = []byte{byte(size)}
	case size >= 256 && size < 256+1<<16:
		desc |= 1 << 6
		fcs = binary.LittleEndian.AppendUint16(nil, uint16(size-256))
	case size < 1<<32:
		desc |= 2 << 6
		fcs = binary.LittleEndian.AppendUint32(nil, uint32(size))
	default:
		desc |= 3 << 6
		fcs = binary.LittleEndian.AppendUint64(nil, uint64(size))
	}
	if single {
		desc |= 1 << 5
		dst = append(dst, desc)
	} else {
		dst = append(dst, desc, (windowLog-10)<<3) // Window_Descriptor: exponent, mantissa 0
	}
	return append(dst, fcs...)
}

// appendBlock appends src as one block: RLE when it is one byte repeated, Compressed when
// that is smaller, else Raw.
func (e *Encoder) appendBlock(dst, src []byte, last bool) []byte {
	if e.opt.Checksum {
		e.xx.write(src)
	}
	start := e.remember(src)
	switch {
	case len(src) == 0:
		return appendBlockHeader(dst, last, blockRaw, 0)
	case len(src) > 4 && allSame(src):
		return append(appendBlockHeader(dst, last, blockRLE, len(src)), src[0])
	}
	saved := e.rep
	e.parse(start, start+len(src))
	body := appendLiterals(e.body[:0], e.lits, e.huff)
	body = e.coder.appendSequences(body, e.seqs)
	e.body = body
	if len(body) >= len(src) {
		// The decoder changes no repeat offset for a Raw block.
		e.rep = saved
		return append(appendBlockHeader(dst, last, blockRaw, len(src)), src...)
	}
	return append(appendBlockHeader(dst, last, blockCompressed, len(body)), body...)
}

func appendBlockHeader(dst []byte, last bool, typ, size int) []byte {
	h := uint32(size)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

// remember adds src to the history, sliding it (the last WindowSize bytes kept) when it
// is full, and returns where src starts in it.
func (e *Encoder) remember(src []byte) int {
	if e.hist == nil {
		// A stream's history fills up: take its room at once. A frame of known size
		// needs its size.
		n := histCap
		if e.contentSize >= 0 {
			n = int(min(e.contentSize, histCap))
		}
		e.hist = make([]byte, 0, n)
	}
	if len(e.hist)+len(src) > histCap {
		drop := len(e.hist) - WindowSize
		copy(e.hist, e.hist[drop:])
		e.hist = e.hist[:WindowSize]
		e.origin += int32(drop)
		if e.origin > 1<<30 {
			e.rebase()
		}
	}
	start := len(e.hist)
	e.hist = append(e.hist, src...)
	return start
}

// rebase moves the table's positions back near 0 before they overflow: positions out of
// the history become empty.
func (e *Encoder) rebase() {
	d := e.origin - 1
	for i, p := range e.table {
		if p > d {
			e.table[i] = p - d
		} else {
			e.table[i] = 0
		}
	}
	e.origin = 1
}

package unwind

import (
	"encoding/binary"
	"errors"
)

var errTruncated = errors.New("an entry runs past its section")

// reader reads the fields of a table section at pos. A read past the end sets err and
// returns zero: callers check err once after a group of reads.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errTruncated
	}
	r.pos = len(r.b)
}

func (r *reader) need(n int) bool {
	if n < 0 || r.pos > len(r.b)-n {
		r.fail()
		return false
	}
	return true
}

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.pos]
	r.pos++
	return v
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(r.b[r.pos:])
	r.pos += 2
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.pos:])
	r.pos += 4
	return v
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.pos:])
	r.pos += 8
	return v
}

// word reads an address of size bytes (4 or 8).
func (r *reader) word(size int) uint64 {
	if size == 4 {
		return uint64(r.u32())
	}
	return r.u64()
}

func (r *reader) uleb() uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		if !r.need(1) {
			return 0
		}
		c := r.b[r.pos]
		r.pos++
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c&0x80 == 0 {
			return v
		}
		if shift > 70 {
			r.fail() // no LEB128 number of pmc's tables is this long
			return 0
		}
	}
}

func (r *reader) sleb() int64 {
	var v int64
	shift := 0
	for {
		if !r.need(1) {
			return 0
		}
		c := r.b[r.pos]
		r.pos++
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
		if shift > 70 {
			r.fail()
			return 0
		}
	}
}

// block reads n bytes.
func (r *reader) block(n uint64) []byte {
	if n > uint64(len(r.b)) || !r.need(int(n)) {
		r.fail()
		return nil
	}
	v := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return v
}

// cstring reads a NUL-terminated string.
func (r *reader) cstring() string {
	for i := r.pos; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.pos:i])
			r.pos = i + 1
			return s
		}
	}
	r.fail()
	return ""
}

// Pointer encodings of .eh_frame and .eh_frame_hdr (DW_EH_PE_*, LSB 3.0 section 10.5).
const (
	peAbsptr  = 0x00
	peUleb128 = 0x01
	peUdata2  = 0x02
	peUdata4  = 0x03
	peUdata8  = 0x04
	peSleb128 = 0x09
	peSdata2  = 0x0a
	peSdata4  = 0x0b
	peSdata8  = 0x0c
	pePCRel   = 0x10
	peDataRel = 0x30
	peIndir   = 0x80
	peOmit    = 0xff
)

var errEncoding = errors.New("a pointer encoding pmc does not read")

// ptr reads a pointer in encoding enc; the section is at addr (pc-relative pointers) and
// data-relative ones count from dataBase. Indirect pointers (to be read from memory) are
// refused.
func (r *reader) ptr(enc uint8, word int, addr, dataBase uint64) (uint64, error) {
	if enc == peOmit {
		return 0, nil
	}
	here := addr + uint64(r.pos)
	var v uint64
	switch enc & 0x0f {
	case peAbsptr:
		v = r.word(word)
	case peUleb128:
		v = r.uleb()
	case peUdata2:
		v = uint64(r.u16())
	case peUdata4:
		v = uint64(r.u32())
	case peUdata8:
		v = r.u64()
	case peSleb128:
		v = uint64(r.sleb())
	case peSdata2:
		v = uint64(int64(int16(r.u16())))
	case peSdata4:
		v = uint64(int64(int32(r.u32())))
	case peSdata8:
		v = r.u64()
	default:
		return 0, errEncoding
	}
	switch enc & 0x70 {
	case 0:
	case pePCRel:
		v += here
	case peDataRel:
		v += dataBase
	default:
		return 0, errEncoding
	}
	if enc&peIndir != 0 {
		return 0, errEncoding
	}
	if word == 4 {
		v &= 0xffffffff
	}
	return v, r.err
}

package zstd

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
)

// The standard library's zstd decoder (internal/zstd) is reachable only through debug/elf,
// which decompresses ELF sections compressed with zstd (SHF_COMPRESSED, ELFCOMPRESS_ZSTD).
// Frames are decoded by presenting them as the one section of a minimal ELF file: the
// header ELFPrefix returns, then the frames. It costs nothing at start-up (debug/elf is
// linked in anyway).

// ELFPrefixSize is the size of ELFPrefix's header: the frames start there.
const ELFPrefixSize = 192 + 24

// ELFPrefix returns a 64-bit little-endian ELF header and section table whose section 1,
// at ELFPrefixSize, is a zstd-compressed section of unbounded size: reading it decodes
// the frames that follow the header, as far as the file goes.
func ELFPrefix() []byte {
	le := binary.LittleEndian
	b := make([]byte, ELFPrefixSize)
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], uint16(elf.ET_REL))
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], 1)  // version
	le.PutUint64(b[40:], 64) // section headers
	le.PutUint16(b[52:], 64) // ELF header size
	le.PutUint16(b[58:], 64) // section header size
	le.PutUint16(b[60:], 2)  // sections: none, the stream
	sh := b[128:]            // section 1
	le.PutUint32(sh[4:], uint32(elf.SHT_PROGBITS))
	le.PutUint64(sh[8:], uint64(elf.SHF_COMPRESSED))
	le.PutUint64(sh[24:], 192)   // offset
	le.PutUint64(sh[32:], 1<<62) // size: unbounded
	le.PutUint64(sh[48:], 1)     // alignment
	ch := b[192:]                // Elf64_Chdr
	le.PutUint32(ch[0:], uint32(elf.COMPRESS_ZSTD))
	le.PutUint64(ch[8:], 1<<62) // the decompressed size: unbounded
	le.PutUint64(ch[16:], 1)
	return b
}

// Decode decodes the frames of src with the standard library's decoder.
func Decode(src []byte) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(append(ELFPrefix(), src...)))
	if err != nil {
		return nil, err
	}
	if len(f.Sections) != 2 {
		return nil, fmt.Errorf("zstd: the ELF wrapper has %d sections", len(f.Sections))
	}
	return io.ReadAll(f.Sections[1].Open())
}

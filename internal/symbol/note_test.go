package symbol

import (
	"encoding/binary"
	"testing"
)

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func note(bo byteOrder, name string, typ uint32, desc []byte) []byte {
	b := bo.AppendUint32(nil, uint32(len(name)+1))
	b = bo.AppendUint32(b, uint32(len(desc)))
	b = bo.AppendUint32(b, typ)
	b = append(b, name...)
	b = append(b, 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	b = append(b, desc...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// TestNoteBuildID: the GNU build-id note is found among others (as in /sys/kernel/notes,
// where Xen's notes follow it), in either byte order; truncated or absent notes give "".
func TestNoteBuildID(t *testing.T) {
	id := []byte{0x4a, 0x5a, 0x9b, 0x0a, 0xff, 0xb6, 0x6c, 0x43, 0x7a, 0xbc, 0xd4, 0x55, 0xd2, 0x73, 0x8a, 0xf8, 0x79, 0x98, 0x5f, 0xa9}
	for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		notes := append(note(bo, "Xen", 6, []byte("Linux\x00")), note(bo, "GNU", 3, id)...)
		notes = append(notes, note(bo, "Linux", 0x101, []byte("6.1"))...)
		if got := NoteBuildID(notes, bo); got != "4a5a9b0affb66c437abcd455d2738af879985fa9" {
			t.Errorf("%v: %q", bo, got)
		}
		if got := NoteBuildID(notes[:len(notes)-30], bo); got != "" {
			t.Errorf("%v truncated: %q", bo, got)
		}
		if got := NoteBuildID(note(bo, "GNU", 1, id), bo); got != "" { // NT_GNU_ABI_TAG, not a build-id
			t.Errorf("%v: a type-1 note read as a build-id: %q", bo, got)
		}
	}
}

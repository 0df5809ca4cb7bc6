package host

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
)

// ErrNoKernelBuildID: the machine's /sys/kernel/notes is missing or holds no GNU build-id
// note (a kernel built without one, or a snapshot without the file).
var ErrNoKernelBuildID = errors.New("no kernel build-id in /sys/kernel/notes")

// KernelBuildID returns the running kernel's build-id (lower-case hex) from the ELF notes
// the kernel exports in /sys/kernel/notes (Elf_Nhdr records, the machine's byte order, name
// and descriptor padded to 4 bytes): the NT_GNU_BUILD_ID (3) note named "GNU". It is what
// perf record stores for [kernel.kallsyms] and what perf report compares it with.
func (m *Machine) KernelBuildID() (string, error) {
	if m.Sys == nil {
		return "", ErrNoKernelBuildID
	}
	b, err := fs.ReadFile(m.Sys, "kernel/notes")
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoKernelBuildID
	}
	if err != nil {
		return "", fmt.Errorf("reading /sys/kernel/notes: %w", err)
	}
	return noteBuildID(b, binary.NativeEndian)
}

// noteBuildID finds the GNU build-id note in a sequence of ELF notes.
func noteBuildID(b []byte, bo binary.ByteOrder) (string, error) {
	for len(b) >= 12 {
		namesz, descsz, typ := uint64(bo.Uint32(b)), uint64(bo.Uint32(b[4:])), bo.Uint32(b[8:])
		name := 12 + (namesz+3)&^3
		end := name + (descsz+3)&^3
		if name+descsz > uint64(len(b)) {
			break
		}
		if typ == 3 && namesz == 4 && string(b[12:16]) == "GNU\x00" && descsz > 0 {
			return hex.EncodeToString(b[name : name+descsz]), nil
		}
		b = b[min(end, uint64(len(b))):]
	}
	return "", ErrNoKernelBuildID
}

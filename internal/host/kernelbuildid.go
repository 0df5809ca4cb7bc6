package host

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"

	"github.com/pmc-tools/pmc/internal/symbol"
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
	return kernelBuildID(b)
}

// kernelBuildID reads the build-id in the kernel's notes with symbol's note parser, the one
// build-id parser of pmc (the kernel writes them in the machine's byte order).
func kernelBuildID(notes []byte) (string, error) {
	if id := symbol.NoteBuildID(notes, binary.NativeEndian); id != "" {
		return id, nil
	}
	return "", ErrNoKernelBuildID
}

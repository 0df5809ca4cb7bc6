package host

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
)

// ErrNoKallsyms: the machine has no /proc/kallsyms to read (a snapshot without it, or no
// procfs).
var ErrNoKallsyms = errors.New("no /proc/kallsyms")

// Kallsyms returns the text of /proc/kallsyms (symbol.ParseKallsyms reads it). Its addresses
// are zeros unless the reader may see them (kptr_restrict, root).
func (m *Machine) Kallsyms() ([]byte, error) {
	f, err := m.openKallsyms()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// procfs says the size is 0: start from a few MB (a kernel's table is 5-10 MB) rather
	// than from io.ReadAll's 512 bytes.
	buf := bytes.NewBuffer(make([]byte, 0, 8<<20))
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// KallsymsText is Kallsyms as a string, read without a second copy of the text
// (symbol.ParseKallsymsText keeps slices of it as the symbols' names).
func (m *Machine) KallsymsText() (string, error) {
	f, err := m.openKallsyms()
	if err != nil {
		return "", err
	}
	defer f.Close()
	var sb strings.Builder
	sb.Grow(8 << 20) // procfs says the size is 0; a kernel's table is 5-10 MB
	if _, err := io.CopyBuffer(&sb, f, make([]byte, 256<<10)); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// OpenKallsyms opens /proc/kallsyms to be read as a stream (symbol.ReadKallsyms).
func (m *Machine) OpenKallsyms() (io.ReadCloser, error) { return m.openKallsyms() }

func (m *Machine) openKallsyms() (fs.File, error) {
	if m.root == nil {
		return nil, ErrNoKallsyms
	}
	f, err := m.root.Open("proc/kallsyms")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoKallsyms
	}
	return f, err
}

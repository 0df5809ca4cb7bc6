package host

import (
	"errors"
	"io/fs"
)

// ErrNoKallsyms: the machine has no /proc/kallsyms to read (a snapshot without it, or no
// procfs).
var ErrNoKallsyms = errors.New("no /proc/kallsyms")

// Kallsyms returns the text of /proc/kallsyms (symbol.ParseKallsyms reads it). Its addresses
// are zeros unless the reader may see them (kptr_restrict, root).
func (m *Machine) Kallsyms() ([]byte, error) {
	if m.root == nil {
		return nil, ErrNoKallsyms
	}
	data, err := fs.ReadFile(m.root, "proc/kallsyms")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoKallsyms
	}
	return data, err
}

package cli

import (
	"io"

	"github.com/pmc-tools/pmc/internal/infile"
)

// Input size limits: a file pmc reads is refused past its limit rather than read until
// memory runs out (pmc show /dev/zero grew to 24 GB before). README lists them.
const (
	limitResult = 256 << 20 // pmc show: a saved result (-r 100000 with many events is ~200 MB)
)

// readInput reads path ("-": stdin) up to limit (infile.Read); what names the input in errors.
func readInput(path string, stdin io.Reader, limit int64, what string) ([]byte, error) {
	return infile.Read(path, stdin, limit, what)
}

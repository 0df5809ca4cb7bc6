package cli

import (
	"fmt"
	"io"
	"os"
)

// Input size limits: a file pmc reads is refused past its limit rather than read until
// memory runs out (pmc show /dev/zero grew to 24 GB before). README lists them.
const (
	limitResult  = 256 << 20 // pmc show: a saved result (-r 100000 with many events is ~200 MB)
	limitMetrics = 4 << 20   // --metrics-file
	limitFacts   = 1 << 20   // --fake-machine
	limitFake    = 64 << 20  // --fake
)

// readInput reads path ("-": stdin), at most limit bytes; what names the input in errors.
// FIFOs and devices are read the same way, up to the limit.
func readInput(path string, stdin io.Reader, limit int64, what string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("%s: the file name is empty", what)
	}
	r := stdin
	if path != "-" || stdin == nil {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, fmt.Errorf("%s: %s is a directory: name a file", what, path)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %s is larger than %d MiB, the most pmc reads of it", what, path, limit>>20)
	}
	return data, nil
}

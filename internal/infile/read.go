package infile

import (
	"fmt"
	"io"
	"os"
)

// Read reads path ("-": stdin, when stdin is not nil), at most limit bytes; what names the
// input in errors.
func Read(path string, stdin io.Reader, limit int64, what string) ([]byte, error) {
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

package testenv

import (
	"compress/gzip"
	"io"
	"os"
)

// ReadGzip returns the contents of a gzipped file (the test corpora keep their perf.data
// files gzipped).
func ReadGzip(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

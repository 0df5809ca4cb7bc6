package zstd

import (
	"os"
	"testing"
)

// BenchmarkEncodeFile compresses the file $ZSTD_BENCH_FILE as pmc record -z does (a stream
// appended in chunks of 64000 bytes) at $ZSTD_BENCH_LEVEL (1 by default); bench/zstd.sh
// runs it beside libzstd's own benchmark on the same bytes. It reports the ratio.
func BenchmarkEncodeFile(b *testing.B) {
	path := os.Getenv("ZSTD_BENCH_FILE")
	if path == "" {
		b.Skip("ZSTD_BENCH_FILE names no file")
	}
	in, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	level := 1
	if os.Getenv("ZSTD_BENCH_LEVEL") == "3" {
		level = 3
	}
	b.SetBytes(int64(len(in)))
	var z []byte
	for i := 0; i < b.N; i++ {
		e := NewEncoder(Options{Level: level})
		z = z[:0]
		for p := 0; p < len(in); p += 64000 {
			z = e.Append(z, in[p:min(p+64000, len(in))])
		}
	}
	b.ReportMetric(float64(len(in))/float64(len(z)), "ratio")
}

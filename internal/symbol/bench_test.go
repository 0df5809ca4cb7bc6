package symbol

import (
	"os"
	"testing"
)

// BenchmarkResolveLibc: symbol and line of libc addresses (the table built once, as the
// Resolver caches it). go test -bench Resolve ./internal/symbol
func BenchmarkResolveLibc(b *testing.B) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		b.Skip("no libc")
	}
	tab, err := NewResolver(os.DirFS("/")).Open(libc, "")
	if err != nil {
		b.Fatal(err)
	}
	n := len(tab.Syms)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &tab.Syms[(i*7919)%n]
		tab.Resolve(s.Addr + s.Size/2)
	}
}

// BenchmarkOpenLibc: reading libc and its debug file into a Table.
func BenchmarkOpenLibc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := NewResolver(os.DirFS("/")).Open("/lib/x86_64-linux-gnu/libc.so.6", ""); err != nil {
			b.Fatal(err)
		}
	}
}

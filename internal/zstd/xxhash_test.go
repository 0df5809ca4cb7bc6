package zstd

import "testing"

func TestXXH64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{{"", 0xef46db3751d8e999}, {"abc", 0x44bc2cf5ad770999}} {
		var x xxh64
		x.reset()
		x.write([]byte(c.in))
		if got := x.sum(); got != c.want {
			t.Errorf("XXH64(%q) = %#x, want %#x", c.in, got, c.want)
		}
	}
	// Written in pieces or at once: the same hash.
	b := inputs()["text1000"]
	var a, p xxh64
	a.reset()
	p.reset()
	a.write(b)
	for i := 0; i < len(b); i += 7 {
		p.write(b[i:min(i+7, len(b))])
	}
	if a.sum() != p.sum() {
		t.Errorf("pieces: %#x, at once %#x", p.sum(), a.sum())
	}
}

package host

import "testing"

func TestParseMemAvailable(t *testing.T) {
	in := "MemTotal:        8130560 kB\nMemFree:          512000 kB\nMemAvailable:    4065280 kB\nBuffers: 1 kB\n"
	if got, err := ParseMemAvailable([]byte(in)); err != nil || got != 4065280<<10 {
		t.Errorf("got %d, %v", got, err)
	}
	for _, bad := range []string{"", "MemTotal: 1 kB\n", "MemAvailable: x kB\n", "MemAvailable: 12\n", "MemAvailable: -5 kB"} {
		if _, err := ParseMemAvailable([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseMemAvailable(f *testing.F) {
	f.Add([]byte("MemAvailable:    4065280 kB\n"))
	f.Add([]byte("MemAvailable: 99999999999999999999 kB"))
	f.Add([]byte("MemAvailable:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := ParseMemAvailable(b); err == nil && v < 0 {
			t.Fatalf("negative %d", v)
		}
	})
}

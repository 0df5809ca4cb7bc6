package host

import (
	"testing"
	"testing/fstest"
)

func TestMaxSampleRateAndParanoid(t *testing.T) {
	root := fstest.MapFS{"proc/sys/kernel/perf_event_max_sample_rate": {Data: []byte("25000\n")},
		"proc/sys/kernel/perf_event_paranoid": {Data: []byte("2\n")}}
	m := Probe(root, fstest.MapFS{})
	if r, err := m.MaxSampleRate(); r != 25000 || err != nil {
		t.Errorf("max sample rate %d, %v", r, err)
	}
	if p := m.Paranoid(); p != "2" {
		t.Errorf("paranoid %q", p)
	}
	e := Empty()
	if p := e.Paranoid(); p != "?" {
		t.Errorf("paranoid of a machine without /proc: %q", p)
	}
	if _, err := e.MaxSampleRate(); err == nil {
		t.Error("a machine without /proc has a max sample rate")
	}
}

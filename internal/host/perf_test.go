package host

import (
	"testing"
	"testing/fstest"
)

func TestKernelNotesAndMaxSampleRate(t *testing.T) {
	root := fstest.MapFS{"proc/sys/kernel/perf_event_max_sample_rate": {Data: []byte("25000\n")},
		"proc/sys/kernel/perf_event_paranoid": {Data: []byte("2\n")}}
	sys := fstest.MapFS{"kernel/notes": {Data: []byte("notes")}}
	m := Probe(root, sys)
	if r, err := m.MaxSampleRate(); r != 25000 || err != nil {
		t.Errorf("max sample rate %d, %v", r, err)
	}
	if b, err := m.KernelNotes(); string(b) != "notes" || err != nil {
		t.Errorf("notes %q, %v", b, err)
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
	if _, err := e.KernelNotes(); err != ErrNoKernelNotes {
		t.Errorf("a machine without sysfs: %v", err)
	}
}

package host

import (
	"testing"
	"testing/fstest"
)

func TestKallsyms(t *testing.T) {
	text := "ffffffff81000000 T _text\n"
	m := Probe(fstest.MapFS{"proc/kallsyms": {Data: []byte(text)}}, fstest.MapFS{})
	if got, err := m.Kallsyms(); err != nil || string(got) != text {
		t.Errorf("Kallsyms() = %q, %v", got, err)
	}
	if got, err := m.KallsymsText(); err != nil || got != text {
		t.Errorf("KallsymsText() = %q, %v", got, err)
	}
	if _, err := Probe(fstest.MapFS{}, fstest.MapFS{}).KallsymsText(); err != ErrNoKallsyms {
		t.Errorf("without the file, text: %v", err)
	}
	if _, err := Probe(fstest.MapFS{}, fstest.MapFS{}).Kallsyms(); err != ErrNoKallsyms {
		t.Errorf("without the file: %v", err)
	}
	if _, err := Empty().Kallsyms(); err != ErrNoKallsyms {
		t.Errorf("empty machine: %v", err)
	}
}

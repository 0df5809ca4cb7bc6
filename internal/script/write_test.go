package script

import (
	"bytes"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
	"github.com/pmc-tools/pmc/internal/profile"
)

// TestAnonymous: a frame in anonymous executable memory (JIT code) is printed as perf
// prints it: its process address, and the DSO /tmp/perf-PID.map (checked against perf
// script 6.1 on a system-wide recording); a frame in a file by its offset in the file.
func TestAnonymous(t *testing.T) {
	anon := &profile.DSO{Name: "//anon"}
	lib := &profile.DSO{Name: "/usr/lib/libx.so"}
	p := &profile.Profile{Events: []*profile.Event{{Name: "cpu-clock"}}}
	p.Samples = []profile.Sample{{Thread: &profile.Thread{Pid: 42, Tid: 43, Comm: "java"}, Period: 1, Stack: []*profile.Location{
		{DSO: anon, Sym: &profile.Symbol{Unknown: true}, Addr: 0x7f0000001234, Off: 0x1234},
		{DSO: lib, Sym: &profile.Symbol{Name: "f", Start: 0x100}, Addr: 0x7f1000000180, Off: 0x180, Rel: 0x180},
	}}}
	evs := []perfdata.Event{{Attr: perfdata.Attr{Type: 1, SampleType: perfdata.SampleIP | perfdata.SampleTID | perfdata.SamplePeriod | perfdata.SampleCallchain}}}
	var b bytes.Buffer
	if err := Write(&b, p, evs, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "java    43          1 cpu-clock: \n" +
		"\t    7f0000001234 [unknown] (/tmp/perf-42.map)\n" +
		"\t             180 f+0x80 (/usr/lib/libx.so)\n\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

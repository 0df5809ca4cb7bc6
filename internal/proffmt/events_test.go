package proffmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	pmcprof "github.com/pmc-tools/pmc/internal/profile"
)

// twoEvents: a program whose loader gets the first sample; 3 cpu-clock samples, 2
// page-faults, a dummy event without any.
func twoEvents() *pmcprof.Profile {
	b := pmcprof.NewBuilder(nil)
	b.Event(0, "cpu-clock")
	b.Event(1, "page-faults")
	b.Event(2, "dummy:u")
	b.Comm(pmcprof.CommEvent{Pid: 7, Tid: 7, Comm: "prog", Exec: true})
	b.Mmap(pmcprof.MmapEvent{Pid: 7, Tid: 7, Start: 0x400000, Len: 0x1000, Filename: "/usr/bin/prog"})
	b.Mmap(pmcprof.MmapEvent{Pid: 7, Tid: 7, Start: 0x7f0000000000, Len: 0x1000, Filename: "/lib/ld.so"})
	b.Sample(pmcprof.SampleEvent{Pid: 7, Tid: 7, IP: 0x7f0000000010, Period: 1000000, EventID: 0})
	b.Sample(pmcprof.SampleEvent{Pid: 7, Tid: 7, IP: 0x400010, Period: 1000000, EventID: 0})
	b.Sample(pmcprof.SampleEvent{Pid: 7, Tid: 7, IP: 0x400020, Period: 1000000, EventID: 0})
	b.Sample(pmcprof.SampleEvent{Pid: 7, Tid: 7, IP: 0x7f0000000010, Period: 5, EventID: 1})
	b.Sample(pmcprof.SampleEvent{Pid: 7, Tid: 7, IP: 0x400010, Period: 2, EventID: 1})
	return b.Profile()
}

// Every sampled event is in the pprof profile, under its own sample type; the main
// mapping (pprof's first) is the executable, not ld.so which got the first sample.
func TestPprofEveryEvent(t *testing.T) {
	var buf bytes.Buffer
	if err := Pprof(&buf, twoEvents()); err != nil {
		t.Fatal(err)
	}
	pp, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, st := range pp.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if got := strings.Join(types, " "); got != "samples/count cpu-clock/nanoseconds page-faults/count" {
		t.Errorf("sample types %s", got)
	}
	var sum [3]int64
	for _, s := range pp.Sample {
		for i, v := range s.Value {
			sum[i] += v
		}
	}
	if sum != [3]int64{5, 3000000, 7} {
		t.Errorf("totals %v, want 5 samples, 3000000 ns, 7 faults", sum)
	}
	if pp.Mapping[0].File != "/usr/bin/prog" {
		t.Errorf("main mapping %s, want the executable", pp.Mapping[0].File)
	}
}

// Folded stacks and the flame graph show one event: the only sampled one, the one named,
// or a refusal that names them.
func TestOneEvent(t *testing.T) {
	p := twoEvents()
	if _, err := p.OneEvent(""); err == nil || !strings.Contains(err.Error(), "cpu-clock, page-faults") || !strings.Contains(err.Error(), "--event") {
		t.Errorf("two sampled events: %v", err)
	}
	if ev, err := p.OneEvent("page-faults"); err != nil || ev != 1 {
		t.Errorf("page-faults: %d %v", ev, err)
	}
	if _, err := p.OneEvent("cycles"); err == nil {
		t.Error("an event the file lacks was chosen")
	}
	var b bytes.Buffer
	if err := Folded(&b, p, FoldedOptions{Event: 1}); err != nil || b.String() != "prog;[ld.so] 1\nprog;[prog] 1\n" {
		t.Errorf("folded page-faults: %q %v", b.String(), err)
	}
}

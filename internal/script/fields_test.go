package script

import (
	"strings"
	"testing"

	"github.com/pmc-tools/pmc/internal/perfdata"
)

// sw is a software event recording ip, tid, time and period (no CPU, as perf record without -a).
var sw = []perfdata.Event{{Attr: perfdata.Attr{Type: 1, SampleType: perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleTime | perfdata.SamplePeriod}}}

// TestParse: -F as perf script 6.1 reads it (each case checked against perf script on
// callgraph.data): what a software event without CPU prints, or perf's refusal.
func TestParse(t *testing.T) {
	cases := []struct {
		spec, want, err string
	}{
		{"", "comm,tid,time,event,ip,sym,dso,symoff,period", ""},
		{"comm,tid", "comm,tid", ""},
		{"+pid", "comm,tid,pid,time,event,ip,sym,dso,symoff,period", ""},
		{"-time", "comm,tid,event,ip,sym,dso,symoff,period", ""},
		{"+pid,-tid", "comm,pid,time,event,ip,sym,dso,symoff,period", ""},
		{"ip,,sym", "ip,sym", ""},
		{"sw:comm,ip,sym", "comm,ip,sym", ""},
		{"hw:comm", "comm,tid,time,event,ip,sym,dso,symoff,period", ""}, // no hardware event: no change
		{"sw:", "", ""},
		{"sw:-ip", "comm,tid,time,event,sym,dso,symoff,period", ""},
		{"cpu", "", "do not record CPU"},
		{"+cpu", "", "do not record CPU"},
		{"symoff", "", "symoff needs sym"},
		{"-sym", "", "symoff needs sym"},
		{"comm,-tid", "", "cannot be mixed"},
		{"bogus", "", `unknown field "bogus"`},
		{",", "", "no field named"},
		{"xx:comm", "", "unknown event type"},
		{"trace", "", ""}, // perf: "not valid for software events. Ignoring", then nothing
		{"sw:trace", "", "not a field of software events"},
	}
	for _, c := range cases {
		s, err := Parse(c.spec)
		var got [nKinds]Field
		if err == nil {
			got, err = s.resolve(sw, []string{"cpu-clock"})
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("-F %q: error %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("-F %q: %v", c.spec, err)
			continue
		}
		if got[kindSW].String() != c.want {
			t.Errorf("-F %q: %s, want %s", c.spec, got[kindSW], c.want)
		}
	}
}

// TestUnprintable: a tracepoint's default fields include its trace data, which pmc does not
// decode: refused with the fields that can be printed; without them it prints.
func TestUnprintable(t *testing.T) {
	tp := []perfdata.Event{{Attr: perfdata.Attr{Type: 2, SampleType: perfdata.SampleIP | perfdata.SampleTID | perfdata.SampleRaw}}}
	s, _ := Parse("")
	if _, err := s.resolve(tp, []string{"sched:sched_switch"}); err == nil || !strings.Contains(err.Error(), "cannot print trace") {
		t.Errorf("tracepoint defaults: %v", err)
	}
	s, _ = Parse("comm,tid,ip")
	if got, err := s.resolve(tp, []string{"sched:sched_switch"}); err != nil || got[kindTrace] != Comm|TID|IP {
		t.Errorf("-F comm,tid,ip on a tracepoint: %v %v", got[kindTrace], err)
	}
}
